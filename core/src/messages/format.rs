//! The wire formats ctxpack reads and writes: [`Format`] and its names,
//! made from the format list (`list.rs`).

use super::MessageError;

/// Makes [`Format`], its list, its names and its TypeScript union from the
/// format list.
macro_rules! define_format {
    ($($(#[doc = $doc:literal])* $variant:ident => $module:ident, $name:literal, [$($alias:literal),*];)*) => {
        /// A message wire format. Output always uses the input's format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Format {
            /// Every format, in the order of the list (and of their names in
            /// error messages).
            pub const ALL: [Format; [$($name),*].len()] = [$(Format::$variant),*];

            /// The first of the list: what a call that names no format
            /// writes, and what detection falls back to.
            pub const DEFAULT: Format = Format::ALL[0];
        }

        /// The `Format` type of the TypeScript declarations: the union of
        /// the formats' names, in the list's order.
        pub const FORMAT_UNION_TS: &str = concat!(
            "/** A message wire format. */\nexport type Format = never",
            $(" | \"", $name, "\"",)*
            ";\n"
        );

        /// Every format with its name and the other names it is accepted under.
        pub(super) const NAMES: [(Format, &str, &[&str]); [$($name),*].len()] =
            [$((Format::$variant, $name, &[$($alias),*])),*];

    };
}

super::list::format_list!(define_format);

impl Format {
    /// The name used in options and reports.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(f, _, _)| *f == self)
            .map_or("", |(_, name, _)| name)
    }

    /// Every format's name, in the list's order: `a, b or c`.
    pub fn expected_names() -> String {
        let mut text = String::new();
        for (i, (_, name, _)) in NAMES.iter().enumerate() {
            if i > 0 {
                text.push_str(if i + 1 == NAMES.len() { " or " } else { ", " });
            }
            text.push_str(name);
        }
        text
    }

    /// Parses a format name as given in options (`path` names the option).
    pub fn from_name(name: &str, path: &str) -> Result<Self, MessageError> {
        NAMES
            .iter()
            .find(|(_, n, aliases)| *n == name || aliases.contains(&name))
            .map(|(f, _, _)| *f)
            .ok_or_else(|| MessageError::UnknownFormat {
                path: path.to_owned(),
                name: name.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name(), "o.format"), Ok(f));
        }
        assert_eq!(Format::from_name("vercel", "o"), Ok(Format::AiSdk));
        assert_eq!(
            Format::from_name("responses", "o"),
            Ok(Format::OpenAiResponses)
        );
        assert!(Format::from_name("nope", "o").is_err());
        assert_eq!(
            FORMAT_UNION_TS,
            "/** A message wire format. */\nexport type Format = never | \"openai\" | \"langchain\" | \"anthropic\" | \"ai-sdk\" | \"ui-message\" | \"openai-responses\" | \"gemini\" | \"mcp\" | \"ollama\" | \"gemini-interactions\";\n"
        );
        assert_eq!(
            Format::expected_names(),
            "openai, langchain, anthropic, ai-sdk, ui-message, openai-responses, gemini, mcp, ollama or gemini-interactions"
        );
    }
}
