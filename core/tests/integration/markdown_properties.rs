//! Invariants of the markdown image reader on generated documents (every
//! block and inline construct that decides whether text is an image), on a
//! corpus of tricky CommonMark cases, and on pathological inputs that must
//! stay fast: images come in order without overlapping, their offsets are
//! on character boundaries and agree between UTF-8 and UTF-16, and each
//! one's source is the image's markdown.
#![cfg(not(target_arch = "wasm32"))]

use ctxpack_core::markdown::{parse_markdown_images, MarkdownImage};
use proptest::prelude::*;

/// Checks the invariants on `text` and returns its images.
fn check(text: &str) -> Vec<MarkdownImage> {
    let images = parse_markdown_images(text);
    let mut last_end = 0;
    for img in &images {
        let in_order = last_end <= img.byte_start
            && img.byte_start < img.byte_end
            && img.byte_end <= text.len();
        assert!(in_order, "out of order or overlapping: {img:?} in {text:?}");
        assert!(
            text.is_char_boundary(img.byte_start) && text.is_char_boundary(img.byte_end),
            "not on character boundaries: {img:?} in {text:?}"
        );
        last_end = img.byte_end;
        assert_eq!(img.start, text[..img.byte_start].encode_utf16().count());
        assert_eq!(img.end, text[..img.byte_end].encode_utf16().count());
        let source = &text[img.byte_start..img.byte_end];
        assert!(
            source.starts_with("![") && (source.ends_with(')') || source.ends_with(']')),
            "image source {source:?} in {text:?}"
        );
        // A single-line inline image reads the same on its own.
        if source.ends_with(')') && !source.contains(['\n', '\r']) {
            let alone = parse_markdown_images(source);
            assert_eq!(alone.len(), 1, "{source:?} alone, from {text:?}");
            assert_eq!((alone[0].byte_start, alone[0].byte_end), (0, source.len()));
            assert_eq!(alone[0].url, img.url, "{source:?} alone, from {text:?}");
            assert_eq!(alone[0].title, img.title, "{source:?} alone, from {text:?}");
        }
    }
    ctxpack_core::fuzzing::markdown(text.as_bytes());
    images
}

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(options).prop_map(str::to_owned)
}

fn url() -> impl Strategy<Value = String> {
    pick(&[
        "a.png",
        "x/b_c.png",
        "http://x.test/a.png",
        "a(b)c.png",
        "a\\)b.png",
        "a&amp;b.png",
        "a%20b",
        "<a b.png>",
        "<>",
        "<a\\>b>",
        "data:image/png;base64,iVBO==",
        "file:///w/图表.png",
        "a*b*.png",
        "a_b_.png",
        "((a))",
        "a&#35;b",
        "é.png",
    ])
}

fn title() -> impl Strategy<Value = String> {
    pick(&[
        "",
        " \"T\"",
        " 'T'",
        " (T)",
        " \"a \\\" b\"",
        " \"&amp; x\"",
        "\n\"T\"",
        " \"multi\nline\"",
        " \"unclosed",
        "\"T\"",
        " (a(b)",
        " '标题'",
    ])
}

fn label() -> impl Strategy<Value = String> {
    pick(&[
        "ref", "Ref", "REF", "foo bar", "Foo  Bar", "ünï", "ÜNÏ", "1", "a\\]b", "x",
    ])
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,6}",
        1 => pick(&["这是", "图表", "中文", "😀", "🎉", "👍🏽", "é", "。", "，"]),
    ]
}

fn leaf_inline() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => word(),
        4 => pick(&[" ", " ", "  ", "\t"]),
        3 => pick(&["*", "**", "_", "__", "***", "*a*", "_b_", "**c**"]),
        2 => pick(&["`", "``", "```", "`x`", "`` a`b ``", "` `", "`\\`"]),
        2 => pick(&[
            "<http://a.test/x>", "<a@b.test>", "<not a link>", "<a href=\"x\">", "</a>",
            "<!-- c -->", "<?p?>", "<!DOCTYPE x>", "<![CDATA[x]]>", "<b\nclass=\"y\">", "<",
            "<!--", "<a:b c>",
        ]),
        2 => pick(&["\\[", "\\]", "\\!", "\\*", "\\`", "\\\\", "\\(", "\\_", "\\<", "\\a"]),
        2 => pick(&["&amp;", "&copy;", "&#35;", "&#x1F600;", "&nosuch;", "&#0;", "&", "&#xD800;"]),
        3 => pick(&["[", "]", "(", ")", "!", "![", "](", "[]", "!["]),
        1 => pick(&["  \n", "\\\n", "\n"]),
    ]
}

fn inline() -> impl Strategy<Value = String> {
    leaf_inline().prop_recursive(3, 24, 6, |inner| {
        let content = prop::collection::vec(inner, 0..5).prop_map(|v| v.concat());
        prop_oneof![
            3 => (content.clone(), url(), title(), pick(&["", " ", "\n"]))
                .prop_map(|(alt, u, t, sp)| format!("![{alt}]({sp}{u}{t}{sp})")),
            2 => (content.clone(), label(), pick(&["[{}]", "[]", "", "[ {} ]"]))
                .prop_map(|(alt, l, form)| format!("![{alt}]{}", form.replace("{}", &l))),
            2 => (content.clone(), url(), title())
                .prop_map(|(text, u, t)| format!("[{text}]({u}{t})")),
            1 => (content.clone(), label()).prop_map(|(text, l)| format!("[{text}][{l}]")),
            1 => (content.clone(), pick(&["*", "**", "_", "`", "``"]))
                .prop_map(|(c, d)| format!("{d}{c}{d}")),
            1 => (content, url()).prop_map(|(alt, u)| format!("![{alt}]({u}")),
        ]
    })
}

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(inline(), 1..6).prop_map(|v| v.concat().replace("\n\n", "\n"))
}

fn block() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(line(), 1..4).prop_map(|v| v.join("\n")),
        2 => (pick(&["# ", "## ", "###### ", "####### ", "#"]), line(), pick(&["", " #", " ##", "#"]))
            .prop_map(|(h, l, c)| format!("{h}{}{c}", l.replace('\n', " "))),
        1 => (line(), pick(&["===", "---", "  ==  "])).prop_map(|(l, u)| format!("{l}\n{u}")),
        2 => (pick(&["```", "~~~", "````", "``` rust", "~~~ a`b"]), line(), pick(&["```", "~~~", "````", "", "  ```"]))
            .prop_map(|(f, l, c)| format!("{f}\n{l}\n{c}")),
        1 => line().prop_map(|l| format!("    {}", l.replace('\n', "\n    "))),
        1 => (pick(&["<div>", "<!-- x", "<a href=\"y\">", "<pre>", "<?php", "<table>"]), line(), pick(&["</div>", "-->", "", "</pre>", "?>"]))
            .prop_map(|(o, l, c)| format!("{o}\n{l}\n{c}")),
        2 => (label(), url(), title(), pick(&["", " ", "\n"]))
            .prop_map(|(l, u, t, sp)| format!("[{l}]:{sp} {u}{t}")),
        1 => pick(&["***", "---", "___", "- - -", " * * *"]),
    ]
}

/// A block, possibly inside block quotes and list items.
fn contained() -> impl Strategy<Value = String> {
    block().prop_recursive(3, 12, 3, |inner| {
        let blocks = prop::collection::vec(inner, 1..3).prop_map(|v| v.join("\n\n"));
        prop_oneof![
            (blocks.clone(), any::<bool>()).prop_map(|(b, lazy)| {
                b.lines()
                    .enumerate()
                    .map(|(i, l)| {
                        if lazy && i % 2 == 1 {
                            l.to_owned()
                        } else {
                            format!("> {l}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            (
                blocks,
                pick(&["- ", "* ", "1. ", "2) ", "-   ", "10. "]),
                any::<bool>()
            )
                .prop_map(|(b, marker, lazy)| {
                    let pad = " ".repeat(marker.len());
                    b.lines()
                        .enumerate()
                        .map(|(i, l)| match i {
                            0 => format!("{marker}{l}"),
                            _ if lazy && i % 3 == 2 => l.to_owned(),
                            _ if l.is_empty() => String::new(),
                            _ => format!("{pad}{l}"),
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                }),
        ]
    })
}

fn document() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((contained(), pick(&["\n", "\n\n", "\n\n\n"])), 1..5),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(blocks, crlf, tabs)| {
            let mut doc: String = blocks.into_iter().map(|(b, sep)| b + &sep).collect();
            if tabs {
                doc = doc.replace("    ", "\t");
            }
            if crlf {
                doc = doc.replace('\n', "\r\n");
            }
            doc
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(300)
    ))]

    #[test]
    fn generated_documents_keep_the_invariants(doc in document()) {
        check(&doc);
    }
}

#[test]
fn commonmark_corner_cases_keep_the_invariants() {
    let corpus = [
        // Images.
        "![foo](/url \"title\")",
        "![foo *bar*]\n\n[foo *bar*]: train.jpg \"train & tracks\"",
        "![foo ![bar](/url)](/url2)",
        "![foo [bar](/url)](/url2)",
        "![foo *bar*][]\n\n[foo *bar*]: train.jpg \"train & tracks\"",
        "![foo *bar*][foobar]\n\n[FOOBAR]: train.jpg \"train & tracks\"",
        "![foo](train.jpg)",
        "My ![foo bar](/path/to/train.jpg  \"title\"   )",
        "![foo](<url>)",
        "![](/url)",
        "![foo][bar]\n\n[bar]: /url",
        "![foo][bar]\n\n[BAR]: /url",
        "![foo][]\n\n[foo]: /url \"title\"",
        "![*foo* bar][]\n\n[*foo* bar]: /url \"title\"",
        "![Foo][]\n\n[foo]: /url \"title\"",
        "![foo] \n[]\n\n[foo]: /url \"title\"",
        "![foo]\n\n[foo]: /url \"title\"",
        "![*foo* bar]\n\n[*foo* bar]: /url \"title\"",
        "![[foo]]\n\n[[foo]]: /url \"title\"",
        "![Foo]\n\n[foo]: /url \"title\"",
        "!\\[foo]\n\n[foo]: /url \"title\"",
        "\\![foo]\n\n[foo]: /url \"title\"",
        // Links and brackets.
        "[link](/uri \"title\")",
        "[link](<foo\nbar>)",
        "[a](<b)c>)",
        "![a](<b)c\n![a](<b)c>\n![a](b)",
        "[link](\\(foo\\))",
        "![link](foo(and(bar)))",
        "![link](foo\\(and\\(bar\\))",
        "![link](foo\\)\\:)",
        "![link](foo%20b&auml;)",
        "![link](\"title\")",
        "![link](/url 'title \"and\" title')",
        "![link](   /uri\n  \"title\"  )",
        "![link] (/uri)",
        "![link [foo [bar]]](/uri)",
        "![link] bar](/uri)",
        "![link [bar](/uri)",
        "![link \\[bar](/uri)",
        "[![moon](moon.jpg)](/uri)",
        "[foo [bar](/uri)](/uri)",
        "[foo *[bar [baz](/uri)](/uri)*](/uri)",
        "![[[foo](uri1)](uri2)](uri3)",
        "*[foo*](/uri)",
        "![foo *bar](baz*)",
        "*foo [bar* baz]",
        "![foo <bar attr=\"](baz)\">",
        "![foo`](/uri)`",
        "![foo<http://example.com/?search=](uri)>",
        "![foo][bar][baz]\n\n[baz]: /url",
        "![foo][bar][baz]\n\n[baz]: /url1\n[bar]: /url2",
        "![foo][bar][baz]\n\n[baz]: /url1\n[foo]: /url2",
        "![foo]()",
        "![foo](<>)",
        "![a](b\n \"t\")",
        "![a](b\n\n\"t\")",
        // Code spans, HTML and autolinks take precedence.
        "`![a](b)`",
        "``![a](b)`",
        "`` ` ![a](b) ` ``",
        "![`a](b)`](c)",
        "<a href=\"![x](y)\">",
        "![<a href=\"](x)\">](y)",
        "<http://a.b/![x](y)>",
        "![<http://a.b>](y)",
        "![<x@y.z>](y)",
        "<!-- ![a](b) --> ![c](d)",
        "<?a ![a](b) ?> ![c](d)",
        // Reference definitions.
        "[foo]: /url \"title\"\n\n![foo]",
        "   [foo]: \n      /url  \n           'the title'  \n\n![foo]",
        "[Foo*bar\\]]:my_(url) 'title (with parens)'\n\n![Foo*bar\\]]",
        "[Foo bar]:\n<my url>\n'title'\n\n![Foo bar]",
        "[foo]: /url '\ntitle\nline1\nline2\n'\n\n![foo]",
        "[foo]: /url 'title\n\nwith blank line'\n\n![foo]",
        "[foo]:\n/url\n\n![foo]",
        "[foo]:\n\n![foo]",
        "[foo]: <>\n\n![foo]",
        "[foo]: <bar>(baz)\n\n![foo]",
        "[foo]: /url\\bar\\*baz \"foo\\\"bar\\baz\"\n\n![foo]",
        "![foo]\n\n[foo]: url",
        "![foo]\n\n[foo]: first\n[foo]: second",
        "[FOO]: /url\n\n![Foo]",
        "[ΑΓΩ]: /φου\n\n![αγω]",
        "[foo]: /url\n===\n![foo]",
        "[foo]: /url \"title\" ok\n![foo]",
        "[foo]: /url\n\"title\" ok\n![foo]",
        "    [foo]: /url \"title\"\n\n![foo]",
        "```\n[foo]: /url\n```\n\n![foo]",
        "Foo\n[bar]: /baz\n\n![bar]",
        "# [Foo]\n[foo]: /url\n> bar\n![foo]",
        "[foo]: /url\nbar\n===\n![foo]",
        "[foo]: /foo-url \"foo\"\n[bar]: /bar-url\n  \"bar\"\n[baz]: /baz-url\n\n![foo],\n![bar],\n![baz]",
        "![foo]\n\n> [foo]: /url",
        // Entities and escapes.
        "![a&amp;b](c&amp;d \"e&quot;f\")",
        "![&#35;&#1234;&#992;&#0;](x)",
        "![&#X22;&#XD06;&#xcab;](x)",
        "![&nbsp x; &x; &#; &#x;](y)",
        "![\\!\\\"\\#\\$\\%](y)",
        "![a\\*b](c\\*d)",
        "![`\\*`](x)",
        // Line breaks inside descriptions.
        "![a  \nb\\\nc\nd](x)",
        "![*a*\n_b_](x)",
        // Containers.
        "> ![a](b)\n> ![c](d)",
        "> ![a\n![c](d)",
        "- ![a](b)\n\n  ![c](d)",
        "1. a\n\n   ![b](c)\n2. ![d](e)",
        "-\n  ![a](b)",
        "- a\n    ![b](c)",
        "    ![a](b)\n![c](d)",
        "- ```\n  ![a](b)\n- ![c](d)",
        "> ```\n![a](b)",
        "\t![a](b)",
        " -\t![a](b)",
        "<div>\n![a](b)\n</div>\n\n![c](d)",
        "<div>\n\n![a](b)\n\n</div>",
        "Foo\n<div>\n![a](b)",
        "Foo\n<a>\n![a](b)",
        "# ![a](b) #",
        "## ![a](b)\n![c](d)\n---",
        "![a](b)\n***\n![c](d)",
        "a\r\n![b](c)\r\n\r\n![d](e \"f\r\ng\")",
    ];
    for text in corpus {
        check(text);
    }
}

/// Inputs that take quadratic time in a naive parser; each must finish
/// quickly and keep the invariants.
#[test]
fn pathological_inputs_parse_quickly() {
    let n = 200_000;
    let inputs = [
        "[".repeat(n),
        "![".repeat(n / 2),
        format!("{}a{}", "![".repeat(n / 4), "](b)".repeat(n / 4)),
        format!("{}a{}", "[".repeat(n / 2), "]".repeat(n / 2)),
        "`".repeat(n),
        "` `` ``` ```` ".repeat(n / 16),
        "<".repeat(n),
        "<a <!-- <? <![CDATA[ <!X ".repeat(n / 32),
        "![a](".repeat(n / 5),
        "![a](b \"".repeat(n / 8),
        "[a]".repeat(n / 3),
        "![a][b]".repeat(n / 7),
        "*_".repeat(n / 2),
        format!("![{}](x)", "*a_".repeat(n / 3)),
        format!("![{}](x)", "**a".repeat(n / 3)),
        "&amp;".repeat(n / 5),
        "> ".repeat(n / 2),
        "- ".repeat(n / 2),
        format!("{}\n{}", "- ".repeat(n / 4), "\n".repeat(n / 2)),
        "\\".repeat(n),
        "![a](<".repeat(n / 6),
        "[a]: b\n".repeat(n / 7),
        format!("{}![a](b)", "a\n".repeat(n / 2)),
        format!("{}x\n{}![a](b)", "1. ".repeat(n / 6), "\n".repeat(n / 2)),
    ];
    for input in &inputs {
        let input = &format!("{input}\n![a](b)");
        let images = check(input);
        assert!(images.len() <= input.len());
    }
}

/// Lines inside deeply nested containers cost pulldown-cmark time for each
/// open container (as in other CommonMark parsers), so these grow with
/// depth times lines: at 200,000 bytes they take seconds to a minute. At this
/// size they must finish and keep the invariants.
#[test]
fn deep_nesting_with_many_lines_finishes() {
    let n = 8_000;
    for input in [
        format!("{}```\n{}![a](b)", "1. ".repeat(n / 6), "\n".repeat(n / 2)),
        format!("{}x\n{}![a](b)", "> ".repeat(n / 4), "y\n".repeat(n / 4)),
    ] {
        let input = &format!("{input}\n![a](b)");
        check(input);
    }
}

#[test]
fn cases_the_old_differential_test_found() {
    for text in [
        "-   > <div>\n\t> a\n> </pre>\n\t> \n\t> ![![](a.png)](a.png)\n",
        "- 1.  a\n     ![`][ref]\n     `[`![![`x`][ref]](a.png)\n",
        "> ![](a.png \"multi\r\n> line\")\r\n",
        "- [![*\\\n  ](a.png)](a.png)\n",
        "> > ![\\\n> > ](a.png)\n> > ===\n",
        "> *![<!--](a.png)*\n> `x`\n> [<!-- c -->](a.png)\n",
        "-   > a\n    > a\n    > * *\n\n    ![](a.png)\n",
    ] {
        check(text);
    }
}
