//! The top-level argument members of each read tool's last checked call, as hashes
//! (`json::members`): when a read tool keeps returning one result for different arguments, the
//! next call says which of its arguments differ from the last call's, so a hint can name them
//! ("`date` changed each time") without any argument being kept.

use crate::json::members::MemberHashes;

/// Tools remembered per run; the least recently checked is forgotten beyond this.
pub const TOOLS_KEPT: usize = 8;

/// Per tool (the FNV-1a hash of its name), the member hashes of its last checked call. Boxed: a
/// run that never stalls pays one pointer for it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastArguments {
    // A thin pointer (8 bytes), not a `Vec` (24): 100,000 idle runs must fit in 128 MB.
    #[allow(clippy::box_collection)]
    tools: Option<Box<Vec<ToolArguments>>>,
}

/// One tool's entry: the hash of its name and its last call's member hashes.
type ToolArguments = (u32, Vec<MemberHashes>);

impl LastArguments {
    /// The keys (hashes) of `members` whose values differ from the tool's last call's, or that it
    /// did not have; then `members` becomes the tool's last call. Empty when the tool has no last
    /// call or nothing differs.
    pub fn differing(&mut self, tool: u32, members: Vec<MemberHashes>) -> Vec<u32> {
        let tools = self.tools.get_or_insert_with(Box::default);
        let previous = tools
            .iter()
            .position(|(t, _)| *t == tool)
            .map(|i| tools.remove(i).1);
        let differing = previous.map_or_else(Vec::new, |previous| {
            members
                .iter()
                .filter(|member| !previous.contains(member))
                .map(|(key, _)| *key)
                .collect()
        });
        if tools.len() >= TOOLS_KEPT {
            tools.remove(0);
        }
        tools.push((tool, members));
        differing
    }

    /// Every tool's entry, least recently checked first (for snapshots).
    pub fn entries(&self) -> &[ToolArguments] {
        self.tools.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Restores one entry of a snapshot (entries arrive least recently checked first).
    pub fn restore(&mut self, tool: u32, members: Vec<MemberHashes>) {
        self.tools
            .get_or_insert_with(Box::default)
            .push((tool, members));
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
