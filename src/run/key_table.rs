//! A table of `u32` values under 32-bit keys that are hashes already (the window's call keys):
//! open addressing on the key's low bits, linear probing, at most three quarters full; a key
//! leaves when its count reaches zero or it is taken, and the keys after it are shifted back, so
//! no slot is ever a tombstone. `CallCounts` counts records under keys; `CallChain` keeps the
//! newest record's position under each key.

/// A slot no key holds (a key that is 0 is kept as 1: keys that meet share a value anyway).
const EMPTY: u32 = 0;

#[derive(Debug, Clone, Default)]
pub struct KeyTable {
    slots: Vec<(u32, u32)>,
    len: usize,
}

impl KeyTable {
    /// The slot holding `key`, or the empty slot where it would go; `None` before the first key.
    fn slot(&self, key: u32) -> Option<usize> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut slot = key as usize & mask;
        loop {
            match self.slots.get(slot) {
                Some(&(kept, _)) if kept != EMPTY && kept != key => slot = (slot + 1) & mask,
                Some(_) => return Some(slot),
                None => return None,
            }
        }
    }

    /// The slot `key` holds, if it holds one.
    fn occupied(&self, key: u32) -> Option<usize> {
        let slot = self.slot(key.max(1))?;
        self.slots
            .get(slot)
            .is_some_and(|&(kept, _)| kept != EMPTY)
            .then_some(slot)
    }

    /// The value under `key`, if it has one.
    pub fn value(&self, key: u32) -> Option<u32> {
        let slot = self.occupied(key)?;
        self.slots.get(slot).map(|&(_, value)| value)
    }

    /// The count under `key` (0 when it has none).
    pub fn get(&self, key: u32) -> u32 {
        self.value(key).unwrap_or(0)
    }

    /// Sets the value under `key` to `value_of` the value it had (`None`: a new key).
    fn update(&mut self, key: u32, value_of: impl FnOnce(Option<u32>) -> u32) {
        let key = key.max(1);
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            self.grow();
        }
        if let Some(entry) = self.slot(key).and_then(|slot| self.slots.get_mut(slot)) {
            let new = entry.0 == EMPTY;
            self.len += usize::from(new);
            *entry = (key, value_of((!new).then_some(entry.1)));
        }
    }

    /// Sets the value under `key`.
    pub fn set(&mut self, key: u32, value: u32) {
        self.update(key, |_| value);
    }

    /// Adds one to the count under `key`.
    pub fn add(&mut self, key: u32) {
        self.update(key, |count| count.unwrap_or(0) + 1);
    }

    /// Takes one from the count under `key`; the key leaves at zero.
    pub fn remove(&mut self, key: u32) {
        let Some(slot) = self.occupied(key) else {
            return;
        };
        let Some(entry) = self.slots.get_mut(slot) else {
            return;
        };
        entry.1 = entry.1.saturating_sub(1);
        if entry.1 == 0 {
            self.vacate(slot);
        }
    }

    /// Removes `key` and its value.
    pub fn take(&mut self, key: u32) {
        if let Some(slot) = self.occupied(key) {
            self.vacate(slot);
        }
    }

    /// Empties `hole`, moving back each later key of its probe sequence that may sit there.
    fn vacate(&mut self, mut hole: usize) {
        let mask = self.slots.len() - 1;
        let mut next = (hole + 1) & mask;
        while let Some(&(key, value)) = self.slots.get(next).filter(|(key, _)| *key != EMPTY) {
            let home = key as usize & mask;
            if next.wrapping_sub(home) & mask >= next.wrapping_sub(hole) & mask {
                if let Some(free) = self.slots.get_mut(hole) {
                    *free = (key, value);
                }
                hole = next;
            }
            next = (next + 1) & mask;
        }
        if let Some(free) = self.slots.get_mut(hole) {
            *free = (EMPTY, 0);
        }
        self.len -= 1;
    }

    /// Doubles the table (from 8 slots), placing every key again.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(8);
        let kept = std::mem::replace(&mut self.slots, vec![(EMPTY, 0); size]);
        for (key, value) in kept.into_iter().filter(|&(key, _)| key != EMPTY) {
            if let Some(free) = self.slot(key).and_then(|slot| self.slots.get_mut(slot)) {
                *free = (key, value);
            }
        }
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.len = 0;
    }

    /// How many keys the table holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Every (key, value), in slot order.
    pub fn entries(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.slots.iter().copied().filter(|&(key, _)| key != EMPTY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table counts as a map does, keys sharing their low bits (long probe runs, keys
    /// shifted back on removal) and the key 0 included; a taken key leaves.
    #[test]
    fn the_table_counts_as_a_map_does() {
        let mut table = KeyTable::default();
        let mut map = std::collections::BTreeMap::new();
        let mut rng = crate::json::test_rng::Rng(35);
        for step in 0..20_000u64 {
            let key = ((rng.below(40) as u32) << 16) | (rng.below(3) as u32 * 64);
            let count: &mut u32 = map.entry(key.max(1)).or_default();
            match rng.below(5) {
                0 => {
                    *count = 0;
                    table.take(key);
                }
                1 | 2 if *count > 0 => {
                    *count -= 1;
                    table.remove(key);
                }
                _ => {
                    *count += 1;
                    table.add(key);
                }
            }
            map.retain(|_, count| *count > 0);
            if step % 97 == 0 {
                assert_eq!(table.len(), map.len());
                assert!(map.iter().all(|(&key, &count)| table.get(key) == count));
                assert!(table
                    .entries()
                    .all(|(key, count)| map.get(&key) == Some(&count)));
            }
        }
        assert_eq!((table.get(12345), table.value(12345)), (0, None));
        table.set(7, 0);
        assert_eq!(table.value(7), Some(0), "a value of 0 is kept");
    }
}
