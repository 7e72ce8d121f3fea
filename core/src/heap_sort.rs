//! An in-place heap sort: O(n log n), no allocation. Not stable: callers
//! break ties themselves when order matters. Only the markdown scanner still
//! uses it (for link definitions); the rest of the crate sorts with the
//! standard library.

/// Sorts `items` in place by `less`.
pub fn heap_sort<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let sift = |items: &mut [T], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less(&items[child], &items[child + 1]) {
            child += 1;
        }
        if !less(&items[root], &items[child]) {
            break;
        }
        items.swap(root, child);
        root = child;
    };
    let len = items.len();
    for root in (0..len / 2).rev() {
        sift(items, root, len);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift(items, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::heap_sort;

    #[test]
    fn sorts_like_the_standard_sort() {
        let mut seed = 7u32;
        for len in 0..200 {
            let mut items: Vec<u32> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    seed >> 24
                })
                .collect();
            let mut expected = items.clone();
            expected.sort();
            heap_sort(&mut items, |a, b| a < b);
            assert_eq!(items, expected);
        }
    }
}
