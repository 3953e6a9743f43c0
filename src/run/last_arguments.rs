//! The top-level argument members of each read tool's last checked call, as hashes
//! (`json::members`): when a read tool keeps returning one result for different arguments, the
//! next call says which of its arguments differ from the last call's, so a hint can name them
//! ("`date` changed each time") without any argument being kept.

use crate::json::members::MemberHashes;

/// Tools remembered per run; the least recently checked is forgotten beyond this.
pub const TOOLS_KEPT: usize = 8;

/// Per tool (the FNV-1a hash of its name), the member hashes of its last checked call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastArguments {
    tools: Vec<(u32, Vec<MemberHashes>)>,
}

impl LastArguments {
    /// The keys (hashes) of `members` whose values differ from the tool's last call's, or that it
    /// did not have; then `members` becomes the tool's last call. Empty when the tool has no last
    /// call or nothing differs.
    pub fn differing(&mut self, tool: u32, members: Vec<MemberHashes>) -> Vec<u32> {
        let previous = match self.tools.iter().position(|(t, _)| *t == tool) {
            Some(i) => Some(self.tools.remove(i).1),
            None => None,
        };
        let differing = previous.map_or_else(Vec::new, |previous| {
            members
                .iter()
                .filter(|member| !previous.contains(member))
                .map(|(key, _)| *key)
                .collect()
        });
        if self.tools.len() >= TOOLS_KEPT {
            self.tools.remove(0);
        }
        self.tools.push((tool, members));
        differing
    }

    /// Every tool's entry, least recently checked first (for snapshots).
    pub fn entries(&self) -> &[(u32, Vec<MemberHashes>)] {
        &self.tools
    }

    /// Restores one entry of a snapshot (entries arrive least recently checked first).
    pub fn restore(&mut self, tool: u32, members: Vec<MemberHashes>) {
        self.tools.push((tool, members));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_differing_keys_of_consecutive_calls() {
        let mut last = LastArguments::default();
        assert!(
            last.differing(1, vec![(10, 1), (20, 2)]).is_empty(),
            "no last call"
        );
        assert_eq!(last.differing(1, vec![(10, 1), (20, 3)]), vec![20]);
        assert_eq!(last.differing(1, vec![(10, 1), (20, 3), (30, 4)]), vec![30]);
        assert!(last.differing(2, vec![(10, 9)]).is_empty(), "another tool");
        for tool in 3..20 {
            last.differing(tool, Vec::new());
        }
        assert_eq!(last.entries().len(), TOOLS_KEPT);
        assert!(
            last.differing(1, vec![(10, 2)]).is_empty(),
            "tool 1 was forgotten"
        );
    }
}
