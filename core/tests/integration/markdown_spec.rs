//! Markdown images against the CommonMark spec: every spec example whose
//! expected HTML has an `<img` (vendored in `fixtures/commonmark_images.json`
//! with the package and version it came from) is parsed, and the images found
//! are compared with the `<img>` elements of the expected HTML, in order.

use ctxpack_core::markdown::parse_markdown_images;

const FIXTURE: &str = include_str!("../fixtures/commonmark_images.json");

/// Examples whose only `<img` is raw HTML passed through from the markdown,
/// not an image: they are still compared (no image expected, none found).
const RAW_HTML_ONLY: &[u64] = &[475];

/// An `<img>` element as the spec's renderer writes one.
#[derive(Debug, PartialEq)]
struct Expected {
    src: String,
    alt: String,
    title: Option<String>,
}

/// The `<img ...>` elements of `html`: each one's source text and its
/// attributes (values as written, still escaped).
fn img_elements(html: &str) -> Vec<(&str, Vec<(&str, &str)>)> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<img") {
        let element = &rest[at..];
        let mut tail = &element[4..];
        let mut attributes = Vec::new();
        loop {
            tail = tail.trim_start_matches(' ');
            if let Some(after) = tail.strip_prefix("/>").or_else(|| tail.strip_prefix('>')) {
                tail = after;
                break;
            }
            let (name, after) = tail.split_once("=\"").expect("attribute name");
            let (value, after) = after.split_once('"').expect("closing quote");
            attributes.push((name, value));
            tail = after;
        }
        let len = element.len() - tail.len();
        found.push((&element[..len], attributes));
        rest = &element[len..];
    }
    found
}

/// Undoes the spec renderer's escaping: it writes `&`, `<`, `>` and `"` as
/// entities and nothing else.
fn unescape_html(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let (entity, c) = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
        ]
        .into_iter()
        .find(|(e, _)| rest.starts_with(e))
        .unwrap_or_else(|| panic!("unexpected entity in {text:?}"));
        out.push(c);
        rest = &rest[entity.len()..];
    }
    out.push_str(rest);
    out
}

/// A destination as the spec's renderer writes it in `src`: percent-encoded
/// (existing `%XX` escapes kept), then HTML-escaped.
fn render_src(url: &str) -> String {
    const KEEP: &[u8] = b";/?:@&=+$,-_.!~*'()#";
    let bytes = url.as_bytes();
    let mut encoded = String::new();
    for (i, &b) in bytes.iter().enumerate() {
        let escape_kept = b == b'%'
            && bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        if b.is_ascii_alphanumeric() || KEEP.contains(&b) || escape_kept {
            encoded.push(char::from(b));
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    encoded
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn images_match_the_commonmark_spec_examples() {
    let fixture: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    assert_eq!(fixture["package"], "commonmark-spec");
    let examples = fixture["examples"].as_array().unwrap();
    let mut failures = Vec::new();
    let mut raw_html_only = Vec::new();
    let mut compared_images = 0;
    for example in examples {
        let number = example["example"].as_u64().unwrap();
        let markdown = example["markdown"].as_str().unwrap();
        let html = example["html"].as_str().unwrap();
        let mut expected = Vec::new();
        for (source, attributes) in img_elements(html) {
            let names: Vec<&str> = attributes.iter().map(|(n, _)| *n).collect();
            let rendered = source.ends_with(" />")
                && (names == ["src", "alt"] || names == ["src", "alt", "title"]);
            if !rendered {
                // Raw inline or block HTML is copied through as written.
                assert!(
                    markdown.contains(source),
                    "example {number}: {source:?} is neither a rendered image nor raw HTML"
                );
                continue;
            }
            let value = |i: usize| attributes.get(i).map(|(_, v)| *v);
            expected.push(Expected {
                src: value(0).unwrap().to_owned(),
                alt: unescape_html(value(1).unwrap()),
                title: value(2).map(unescape_html),
            });
        }
        if expected.is_empty() {
            raw_html_only.push(number);
        }
        let images = parse_markdown_images(markdown);
        let ours: Vec<Expected> = images
            .iter()
            .map(|i| Expected {
                src: render_src(&i.url),
                alt: i.alt.clone(),
                title: i.title.clone(),
            })
            .collect();
        for image in &images {
            assert!(markdown[image.byte_start..image.byte_end].starts_with("!["));
        }
        compared_images += expected.len();
        if ours != expected {
            failures.push(format!(
                "example {number}: {markdown:?}\n  expected {expected:?}\n  found    {ours:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(raw_html_only, RAW_HTML_ONLY);
    assert_eq!(examples.len(), 23);
    assert_eq!(compared_images, 22);
}

#[test]
fn src_is_rendered_as_the_spec_renderer_does() {
    assert_eq!(render_src("/url"), "/url");
    assert_eq!(render_src("a b"), "a%20b");
    assert_eq!(render_src("a%20b%zz%2"), "a%20b%25zz%252");
    assert_eq!(render_src("foo bä"), "foo%20b%C3%A4");
    assert_eq!(render_src("a&b\"c"), "a&amp;b%22c");
    assert_eq!(render_src("[x]\\y`"), "%5Bx%5D%5Cy%60");
}
