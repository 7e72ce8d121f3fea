//! Profiles an app registers for models ctxpack does not know (or to
//! replace a built-in row). The registry is the one piece of global state:
//! a list behind a lock, matched before the built-in table. The names a
//! profile carries are kept once each (see `names`).

#[cfg(test)]
use super::model_profile;
use super::names::{intern, lock};
use super::spec::{ProfileError, ProfileOverrides};
use super::ModelProfile;
use std::sync::Mutex;

/// The most profiles an app may register.
const MAX_PROFILES: usize = 256;
/// The longest model id a profile may be registered under.
const MAX_ID: usize = 200;

static PROFILES: Mutex<Vec<ModelProfile>> = Mutex::new(Vec::new());

/// The registered profile for an id (lowercase, whole and without its
/// `provider/` prefix): the longest registered id either starts with.
pub(super) fn find(lower: &str, bare: &str) -> Option<ModelProfile> {
    let profiles = lock(&PROFILES);
    profiles
        .iter()
        .filter(|p| lower.starts_with(p.matched) || bare.starts_with(p.matched))
        .max_by_key(|p| p.matched.len())
        .copied()
}

/// Registers `profile` for `model_id` and every id that starts with it
/// (case-insensitive), ahead of the built-in table; registering an id again
/// replaces its profile. With a `provider`, the profile starts from that
/// provider's defaults, else from what `model_id` matches now. Returns the
/// profile as registered.
pub fn register_model_profile(
    model_id: &str,
    profile: &ProfileOverrides,
) -> Result<ModelProfile, ProfileError> {
    let id = model_id.trim().to_ascii_lowercase();
    if id.is_empty() || id.len() > MAX_ID {
        return Err(ProfileError::new(
            "modelId",
            format!("expected a model id of 1 to {MAX_ID} characters"),
        ));
    }
    let resolved = super::spec::resolve_profile(&id, Some(profile))?;
    let too_many = || ProfileError::new("", "too many profiles registered");
    let registered = ModelProfile {
        matched: intern(&id).ok_or_else(too_many)?,
        source: match (&profile.source, profile.provider) {
            (None, Some(_)) => "registerModelProfile",
            _ => resolved.source,
        },
        ..resolved
    };
    let mut profiles = lock(&PROFILES);
    let full = profiles.len() >= MAX_PROFILES;
    match profiles
        .iter_mut()
        .find(|p| p.matched == registered.matched)
    {
        Some(slot) => *slot = registered,
        None if full => return Err(too_many()),
        None => profiles.push(registered),
    }
    Ok(registered)
}

#[cfg(test)]
mod tests {
    use super::super::{BytesOn, TokenRule};
    use super::*;

    #[test]
    fn a_registered_profile_matches_before_the_table() {
        let spec = ProfileOverrides::from_json(
            r#"{"provider":"openai","tokens":{"kind":"openai-patches","multiplierMilli":1000},"maxImages":4,"imageBytesOn":"base64","source":"acme docs, read 2026-11-25"}"#,
        )
        .unwrap();
        let p = register_model_profile("Acme-Vision", &spec).unwrap();
        assert_eq!((p.matched, p.provider), ("acme-vision", "openai"));
        for id in [
            "acme-vision",
            "ACME-VISION-2026",
            "openrouter/acme-vision-mini",
        ] {
            let found = model_profile(id);
            assert_eq!(found, p, "{id}");
        }
        assert_eq!(p.tokens, TokenRule::openai_patches(1000));
        assert_eq!((p.max_images, p.image_bytes_on), (Some(4), BytesOn::Base64));
        assert_eq!(p.source, "acme docs, read 2026-11-25");
        // Again: replaced, not added.
        let again = ProfileOverrides::from_json(r#"{"provider":"openai","maxImages":9}"#).unwrap();
        assert_eq!(
            register_model_profile("acme-vision", &again)
                .unwrap()
                .max_images,
            Some(9)
        );
        assert_eq!(model_profile("acme-vision").max_images, Some(9));
    }

    #[test]
    fn a_registered_row_replaces_a_built_in_one_and_the_longest_wins() {
        let spec = ProfileOverrides::from_json(r#"{"maxImages":3}"#).unwrap();
        let p = register_model_profile("gpt-4o-2099", &spec).unwrap();
        assert_eq!(
            (p.provider, p.tokens),
            ("openai", TokenRule::openai_tiles(85, 170))
        );
        assert_eq!(model_profile("gpt-4o-2099-01-01").max_images, Some(3));
        assert_eq!(model_profile("gpt-4o").max_images, Some(500));
        let longer = ProfileOverrides::from_json(r#"{"maxImages":2}"#).unwrap();
        register_model_profile("gpt-4o-2099-01", &longer).unwrap();
        assert_eq!(model_profile("gpt-4o-2099-01-01").max_images, Some(2));
    }

    #[test]
    fn bad_ids_and_profiles_are_refused() {
        let spec = ProfileOverrides::default();
        assert_eq!(
            register_model_profile("  ", &spec).unwrap_err().path,
            "modelId"
        );
        assert_eq!(
            register_model_profile(&"x".repeat(201), &spec)
                .unwrap_err()
                .path,
            "modelId"
        );
        let zero =
            ProfileOverrides::from_json(r#"{"tokens":{"kind":"gemini-tiles","tile":0}}"#).unwrap();
        assert_eq!(
            register_model_profile("zero-tile", &zero).unwrap_err().path,
            "tokens.tile"
        );
        assert_eq!(model_profile("zero-tile").provider, "openai");
    }
}
