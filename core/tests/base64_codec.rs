//! The crate's own base64 codec against the `base64` crate as the reference.
#![cfg(not(target_arch = "wasm32"))]

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ctxpack_core::media::base64_text::{decode, encode};
use proptest::prelude::*;

proptest! {
    #[test]
    fn encodes_as_the_reference_and_decodes_back(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = encode(&bytes);
        prop_assert_eq!(&text, &STANDARD.encode(&bytes));
        prop_assert_eq!(decode(&text), Some(bytes));
    }

    #[test]
    fn accepts_and_refuses_what_the_reference_does(text in "[A-Za-z0-9+/=*\\n ]{0,24}") {
        prop_assert_eq!(decode(&text), STANDARD.decode(&text).ok(), "{:?}", text);
    }

    #[test]
    fn refuses_near_misses_as_the_reference_does(
        bytes in prop::collection::vec(any::<u8>(), 1..60),
        at in any::<prop::sample::Index>(),
        with in prop::sample::select(vec![b'=', b'*', b'-', b'_', b' ', b'A', b'/']),
    ) {
        let mut text = encode(&bytes).into_bytes();
        let i = at.index(text.len());
        text[i] = with;
        let text = String::from_utf8(text).unwrap();
        prop_assert_eq!(decode(&text), STANDARD.decode(&text).ok(), "{:?}", text);
    }
}

#[test]
fn known_vectors() {
    for (plain, coded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(encode(plain.as_bytes()), coded);
        assert_eq!(decode(coded).as_deref(), Some(plain.as_bytes()));
    }
    // Bits after the last byte must be zero; padding only at the very end.
    assert_eq!(decode("Zh=="), None);
    assert_eq!(decode("Zm9=Zm9v"), None);
    assert_eq!(decode("Zg="), None);
    assert_eq!(decode("Z==="), None);
}
