//! Where an image part keeps its image: one [`ShapeSpec`] per wire shape,
//! declared as data by the format that writes it (`IMAGE_URL_OBJECT` in
//! `openai`, `INLINE_DATA` in `gemini`, …), and an [`ImageShape`] naming one.

/// Where one wire shape of image part keeps its value and MIME type, and
/// what may be done with it. Each format's module declares its own.
#[derive(Debug)]
pub struct ShapeSpec {
    /// The name it is stored under (in a stash record's template); unique
    /// across formats.
    pub(super) name: &'static str,
    /// The object holding the value, when it is not the part itself.
    pub(super) container: Option<&'static str>,
    /// The key of the value.
    pub(super) value: &'static str,
    /// The key of the MIME type.
    pub(super) mime: Option<&'static str>,
    /// True when the MIME type is on the part, not in the container.
    pub(super) mime_outside: bool,
    /// True when the value is always base64, never a URL.
    pub(super) always_base64: bool,
    /// False for an image that stays inline wherever it is (an entry of
    /// an Interactions content-list input, which is all the person's one
    /// turn). A place that takes a picture and nothing else takes its
    /// placeholder as a picture of it (`picture.rs`).
    pub(super) replaceable_by_text: bool,
    /// True for a part that is no part of its message's content (an entry
    /// of an Ollama message's `images`): it goes back only into a message
    /// of a format that holds this shape.
    pub(super) own_format_only: bool,
}

impl ShapeSpec {
    /// A shape whose value at `value` (in `container`, when given) is a URL,
    /// a data URL or, with a MIME type beside it, base64.
    pub(super) const fn url(
        name: &'static str,
        container: Option<&'static str>,
        value: &'static str,
        mime: Option<&'static str>,
    ) -> ShapeSpec {
        ShapeSpec {
            name,
            container,
            value,
            mime,
            mime_outside: false,
            always_base64: false,
            replaceable_by_text: true,
            own_format_only: false,
        }
    }

    /// A shape whose value is always base64.
    pub(super) const fn base64(
        name: &'static str,
        container: Option<&'static str>,
        value: &'static str,
        mime: Option<&'static str>,
    ) -> ShapeSpec {
        ShapeSpec {
            always_base64: true,
            ..ShapeSpec::url(name, container, value, mime)
        }
    }
}

/// Where an image part keeps its image: one of the shapes the formats
/// declare. Two shapes are equal when they have the same name.
#[derive(Clone, Copy)]
pub struct ImageShape(&'static ShapeSpec);

impl ImageShape {
    /// The shape `spec` describes.
    pub(super) const fn new(spec: &'static ShapeSpec) -> ImageShape {
        ImageShape(spec)
    }

    /// The name this shape is stored under.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Where the value and its MIME type are.
    pub(super) fn keys(self) -> &'static ShapeSpec {
        self.0
    }

    /// True for shapes whose value is always base64, never a URL.
    pub(super) fn always_base64(self) -> bool {
        self.0.always_base64
    }

    /// False for shapes whose images stay inline wherever they are (an
    /// entry of an Interactions content-list input).
    pub fn replaceable_by_text(self) -> bool {
        self.0.replaceable_by_text
    }

    /// True for a shape that goes back only into a format that holds it.
    pub(super) fn own_format_only(self) -> bool {
        self.0.own_format_only
    }
}

impl PartialEq for ImageShape {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0) || self.0.name == other.0.name
    }
}

impl Eq for ImageShape {}

impl std::fmt::Debug for ImageShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}
