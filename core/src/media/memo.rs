//! Values remembered between calls, in numbered slots, bounded in the
//! text they keep alive, in entries, and in how long an entry stays unused:
//! the policy of which entries are kept and which go. The host finds an
//! entry by its own key (a JavaScript `Map` keyed by the payload string
//! itself: equal text or nothing, never a sampled fingerprint) and keeps
//! the key alive while the entry lives.

/// How much a [`Memo`] may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoLimits {
    /// Total length of the payload texts it keeps alive.
    pub max_bytes: u64,
    /// Number of entries.
    pub max_entries: usize,
    /// Calls an entry may go unused before it is dropped.
    pub max_idle_calls: u32,
}

impl Default for MemoLimits {
    /// 128 MiB of text, 4,096 entries, dropped after 32 calls unused: a
    /// history of a hundred 1 MB screenshots is remembered whole, and the
    /// images of a chat the app has closed are let go soon after.
    fn default() -> Self {
        MemoLimits {
            max_bytes: 128 << 20,
            max_entries: 4096,
            max_idle_calls: 32,
        }
    }
}

#[derive(Debug)]
struct Entry<K, V> {
    key: K,
    value: V,
    /// The text it keeps alive, in bytes.
    bytes: u64,
    /// The call that last used it.
    last_call: u32,
}

/// Values remembered of payloads seen before, in numbered slots; `K` is
/// the host's key (handed back when an entry goes, so the host can forget
/// it too).
#[derive(Debug)]
pub struct Memo<K, V> {
    slots: Vec<Option<Entry<K, V>>>,
    free: Vec<u32>,
    held_bytes: u64,
    entries: usize,
    call: u32,
    limits: MemoLimits,
}

impl<K, V> Memo<K, V> {
    /// An empty memo within `limits`.
    pub fn new(limits: MemoLimits) -> Self {
        Memo {
            slots: Vec::new(),
            free: Vec::new(),
            held_bytes: 0,
            entries: 0,
            call: 0,
            limits,
        }
    }

    /// Starts a call: returns its number, and the keys of entries that went
    /// unused for longer than the limit (now forgotten).
    pub fn begin_call(&mut self) -> (u32, Vec<K>) {
        self.call = self.call.wrapping_add(1);
        let call = self.call;
        let idle = self.limits.max_idle_calls;
        let stale: Vec<u32> = self
            .live()
            .filter(|(_, e)| call.wrapping_sub(e.last_call) > idle)
            .map(|(slot, _)| slot)
            .collect();
        let gone = stale.into_iter().filter_map(|s| self.remove(s)).collect();
        (call, gone)
    }

    /// The value in `slot`, marked as used by `call`; `None` when the slot
    /// is empty.
    pub fn get_mut(&mut self, slot: u32, call: u32) -> Option<&mut V> {
        let entry = self.slots.get_mut(slot as usize)?.as_mut()?;
        entry.last_call = call;
        Some(&mut entry.value)
    }

    /// Remembers `value`, which keeps `bytes` of text alive, under `key`
    /// for `call`. Makes room by dropping the entries unused longest, never
    /// one `call` itself used; when there is no room even so, nothing is
    /// remembered. Returns the slot, if one was taken, and the keys dropped.
    pub fn insert(&mut self, key: K, value: V, bytes: u64, call: u32) -> (Option<u32>, Vec<K>) {
        let len = bytes;
        let mut gone = Vec::new();
        if len > self.limits.max_bytes || self.limits.max_entries == 0 {
            return (None, gone);
        }
        while self.held_bytes + len > self.limits.max_bytes
            || self.entries + 1 > self.limits.max_entries
        {
            // The entry unused longest: its last call lies furthest back.
            let oldest = self
                .live()
                .filter(|(_, e)| e.last_call != call)
                .max_by_key(|(slot, e)| (call.wrapping_sub(e.last_call), u32::MAX - slot))
                .map(|(slot, _)| slot);
            match oldest.and_then(|s| self.remove(s)) {
                Some(k) => gone.push(k),
                None => return (None, gone),
            }
        }
        let entry = Entry {
            key,
            value,
            bytes,
            last_call: call,
        };
        self.held_bytes += len;
        self.entries += 1;
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(entry);
                s
            }
            None => {
                self.slots.push(Some(entry));
                (self.slots.len() - 1) as u32
            }
        };
        (Some(slot), gone)
    }

    /// Forgets `slot`; returns its key.
    pub fn remove(&mut self, slot: u32) -> Option<K> {
        let entry = self.slots.get_mut(slot as usize)?.take()?;
        self.held_bytes -= entry.bytes;
        self.entries -= 1;
        self.free.push(slot);
        Some(entry.key)
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The total text length of the payloads it holds.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// Grows the text `slot` keeps alive by `bytes` (a value that gained
    /// another form); the next insertion makes room if that went over.
    pub fn grow(&mut self, slot: u32, bytes: u64) {
        if let Some(Some(entry)) = self.slots.get_mut(slot as usize) {
            entry.bytes += bytes;
            self.held_bytes += bytes;
        }
    }

    fn live(&self) -> impl Iterator<Item = (u32, &Entry<K, V>)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_ref().map(|e| (i as u32, e)))
    }
}
