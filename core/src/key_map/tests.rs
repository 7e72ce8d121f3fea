use super::{KeyMap, KeySet};
use std::collections::{BTreeMap, BTreeSet};

/// Pseudo-random operations, checked step by step against the standard
/// ordered map and set.
#[test]
fn behaves_like_the_standard_ordered_collections() {
    let mut state = 0x853c_49e6_748f_ea9bu64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ours, mut theirs) = (KeyMap::new(), BTreeMap::new());
    let (mut set, mut reference) = (KeySet::new(), BTreeSet::new());
    for step in 0..20_000 {
        let key = format!("k{}", next() % 300);
        match next() % 4 {
            0 | 1 => {
                assert_eq!(
                    ours.insert(key.clone(), step),
                    theirs.insert(key.clone(), step)
                );
                assert_eq!(set.insert(key.clone()), reference.insert(key.clone()));
            }
            2 => {
                assert_eq!(ours.remove(key.as_str()), theirs.remove(key.as_str()));
                assert_eq!(set.remove(key.as_str()), reference.remove(key.as_str()));
            }
            _ => {
                assert_eq!(ours.get(key.as_str()), theirs.get(key.as_str()));
                assert_eq!(
                    ours.contains_key(key.as_str()),
                    theirs.contains_key(key.as_str())
                );
                assert_eq!(set.contains(key.as_str()), reference.contains(key.as_str()));
                if let (Some(a), Some(b)) =
                    (ours.get_mut(key.as_str()), theirs.get_mut(key.as_str()))
                {
                    *a += 1;
                    *b += 1;
                }
            }
        }
        assert_eq!(ours.len(), theirs.len());
        assert_eq!(set.len(), reference.len());
    }
    assert!(ours.iter().eq(theirs.iter()));
    assert!(set.iter().eq(reference.iter()));
    ours.retain(|_, v| *v % 2 == 0);
    theirs.retain(|_, v| *v % 2 == 0);
    assert!(ours.keys().eq(theirs.keys()) && ours.values().eq(theirs.values()));
    assert!(ours.into_values().eq(theirs.into_values()));
}

#[test]
fn collecting_sorts_and_the_last_of_a_repeated_key_wins() {
    let map: KeyMap<&str, u32> = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]
        .into_iter()
        .collect();
    assert_eq!(
        map.into_iter().collect::<Vec<_>>(),
        [("a", 5), ("b", 3), ("c", 4)]
    );
    let set = KeySet::from(["z", "x", "z", "y"]);
    assert_eq!(set.into_iter().collect::<Vec<_>>(), ["x", "y", "z"]);
    let mut empty: KeySet<u32> = KeySet::new();
    assert!(empty.is_empty());
    empty.extend([3, 1, 3]);
    assert_eq!((&empty).into_iter().copied().collect::<Vec<_>>(), [1, 3]);
}
