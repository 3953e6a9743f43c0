//! The `openclaw` preset's detectors over one run's window, in OpenClaw 2026.9.6's order: counts
//! are of the records already in the window (the proposed call is not one of them), refused calls
//! stay in the window as vetoes, and calls still running count towards the repeat warning.

use super::outcome::OutcomeKind;
use super::{Entry, Signature};
use crate::verdict::{DetectorId, Level, OpenClawDetail};

/// What the detectors found about a proposed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub detector: DetectorId,
    pub level: Level,
    pub count: u32,
    pub threshold: u32,
    /// Names the warning for de-duplication (OpenClaw's warning key).
    pub key: WarningKey,
    /// `ping_pong`: the other tool; `unknown_tool_repeat`: the missing tool; `argument_churn`:
    /// the number of argument patterns.
    pub detail: OpenClawDetail,
}

/// Warnings are de-duplicated per key (a pattern, not a call).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WarningKey {
    Poll(Signature, Option<[u8; 32]>),
    PingPong(Signature, Signature),
    PingPongAlone(Signature),
    ArgumentChurn(Box<str>),
    Generic(Signature),
    /// Refusals are never de-duplicated.
    None,
}

/// The thresholds and switches the detectors read.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub warning: u32,
    pub critical: u32,
    pub global: u32,
    pub unknown_tool: u32,
    pub generic_repeat: bool,
    pub known_poll: bool,
    pub ping_pong: bool,
}

/// Calls of one argument pattern needed before it counts as a stable variant of a churn.
const MIN_CALLS_PER_VARIANT: u32 = 3;

struct Streak {
    count: u32,
    latest_hash: Option<[u8; 32]>,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The proposed call's findings, most severe first as OpenClaw orders them; `None` when nothing
/// fires.
pub fn detect(
    history: &[Entry],
    proposed: &Signature,
    known_poll: bool,
    limits: &Limits,
) -> Option<Found> {
    // Refusals carry no warning key; warnings and criticals are measured against `limits`.
    let refusal = |detector, level, count, threshold| Found {
        detector,
        level,
        count,
        threshold,
        key: WarningKey::None,
        detail: OpenClawDetail::None,
    };
    let critical = |detector, count| refusal(detector, Level::Critical, count, limits.critical);
    let warning = |detector, count, key| Found {
        detector,
        level: Level::Warning,
        count,
        threshold: limits.warning,
        key,
        detail: OpenClawDetail::None,
    };
    let (unknown_count, missing) = unknown_tool_streak(history, &proposed.tool);
    if unknown_count >= limits.unknown_tool {
        return Some(Found {
            detail: OpenClawDetail::MissingTool(
                missing.unwrap_or_else(|| proposed.tool.to_string()),
            ),
            ..refusal(
                DetectorId::UnknownToolRepeat,
                Level::Critical,
                unknown_count,
                limits.unknown_tool,
            )
        });
    }
    let streak = no_progress_streak(history, proposed);
    if streak.count >= limits.global {
        return Some(refusal(
            DetectorId::GlobalCircuitBreaker,
            Level::CircuitBreak,
            streak.count,
            limits.global,
        ));
    }
    if known_poll && limits.known_poll {
        if streak.count >= limits.critical {
            return Some(critical(DetectorId::KnownPollNoProgress, streak.count));
        }
        if streak.count >= limits.warning {
            return Some(warning(
                DetectorId::KnownPollNoProgress,
                streak.count,
                WarningKey::Poll(proposed.clone(), streak.latest_hash),
            ));
        }
    }
    if limits.ping_pong {
        if let Some(pair) = ping_pong(history, proposed) {
            let key = match &pair.partner {
                Some(partner) if partner <= proposed => {
                    WarningKey::PingPong(partner.clone(), proposed.clone())
                }
                Some(partner) => WarningKey::PingPong(proposed.clone(), partner.clone()),
                None => WarningKey::PingPongAlone(proposed.clone()),
            };
            let detail = pair.partner.as_ref().map_or(OpenClawDetail::None, |p| {
                OpenClawDetail::Partner(p.tool.to_string())
            });
            if pair.count >= limits.critical && pair.no_progress {
                return Some(Found {
                    detail,
                    ..critical(DetectorId::PingPong, pair.count)
                });
            }
            if pair.count >= limits.warning {
                return Some(Found {
                    detail,
                    ..warning(DetectorId::PingPong, pair.count, key)
                });
            }
        }
    }
    if !known_poll && limits.generic_repeat && streak.count >= limits.critical {
        return Some(critical(DetectorId::GenericRepeat, streak.count));
    }
    let (churn, variants) = argument_churn(history, proposed);
    if churn >= limits.warning {
        return Some(Found {
            detail: OpenClawDetail::Variants(variants),
            ..warning(
                DetectorId::ArgumentChurn,
                churn,
                WarningKey::ArgumentChurn(proposed.tool.clone()),
            )
        });
    }
    let recent = to_u32(history.iter().filter(|r| r.signature == *proposed).count());
    if !known_poll && limits.generic_repeat && recent >= limits.warning {
        return Some(warning(
            DetectorId::GenericRepeat,
            recent,
            WarningKey::Generic(proposed.clone()),
        ));
    }
    None
}

/// Consecutive newest records of the tool whose errors name one unavailable tool.
fn unknown_tool_streak(history: &[Entry], tool: &str) -> (u32, Option<String>) {
    let mut count = 0;
    let mut name: Option<&str> = None;
    for record in history.iter().rev() {
        let missing = record
            .outcome
            .as_ref()
            .and_then(|o| o.unknown_tool.as_deref());
        let Some(missing) = missing.filter(|_| *record.signature.tool == *tool) else {
            break;
        };
        match name {
            None => name = Some(missing),
            Some(first) if first != missing => break,
            Some(_) => {}
        }
        count += 1;
    }
    (count, name.map(str::to_owned))
}

/// The longer of the identical-outcome streak and, for `exec`, the terminal-failure streak.
fn no_progress_streak(history: &[Entry], proposed: &Signature) -> Streak {
    let repeated = streak(history, proposed, false);
    if &*proposed.tool != "exec" {
        return repeated;
    }
    let terminal = streak(history, proposed, true);
    if terminal.count > repeated.count {
        terminal
    } else {
        repeated
    }
}

/// Newest first: completed records of the proposed call sharing the newest one's outcome (with
/// the refusals among them), or with `terminal_only` the run of terminal `exec` failures across
/// changing commands (one failure identity, or one outcome).
fn streak(history: &[Entry], proposed: &Signature, terminal_only: bool) -> Streak {
    let mut count = 0u32;
    let mut latest: Option<&Entry> = None;
    let mut crossed_arguments = false;
    let mut pending_vetoes = 0u32;
    for record in history.iter().rev() {
        if record.signature.tool != proposed.tool {
            if terminal_only {
                break;
            }
            continue;
        }
        let same_args = record.signature == *proposed;
        if !terminal_only && !same_args {
            continue;
        }
        let Some(outcome) = &record.outcome else {
            continue;
        };
        if outcome.kind == OutcomeKind::LoopVeto {
            pending_vetoes += 1;
            continue;
        }
        let Some(hash) = outcome.hash else {
            continue;
        };
        if terminal_only && outcome.kind != OutcomeKind::TerminalExecFailure {
            break;
        }
        let Some(newest) = latest.and_then(|l| l.outcome.as_ref()) else {
            latest = Some(record);
            crossed_arguments = !same_args;
            count = pending_vetoes + 1;
            pending_vetoes = 0;
            continue;
        };
        if terminal_only {
            if crossed_arguments && same_args {
                break;
            }
            if !same_args {
                crossed_arguments = true;
            }
        }
        let same_failure = terminal_only
            && outcome.failure_identity.is_some()
            && outcome.failure_identity == newest.failure_identity;
        if Some(hash) != newest.hash && !same_failure {
            break;
        }
        count += pending_vetoes + 1;
        pending_vetoes = 0;
    }
    let latest_hash = latest.and_then(|l| l.outcome.as_ref()).and_then(|o| o.hash);
    let count = match (latest, terminal_only) {
        (Some(_), _) => count,
        (None, true) => 0,
        (None, false) => pending_vetoes,
    };
    Streak { count, latest_hash }
}

struct PingPong {
    count: u32,
    partner: Option<Signature>,
    no_progress: bool,
}

/// The alternation of two calls at the end of the window that the proposed call continues.
fn ping_pong(history: &[Entry], proposed: &Signature) -> Option<PingPong> {
    let last = history.last()?;
    let other = history
        .iter()
        .rev()
        .skip(1)
        .find(|r| r.signature != last.signature)?
        .signature
        .clone();
    let alternating = history
        .iter()
        .rev()
        .enumerate()
        .take_while(|(i, r)| {
            let expected = if i % 2 == 0 { &last.signature } else { &other };
            r.signature == *expected
        })
        .count();
    if alternating < 2 || *proposed != other {
        return None;
    }
    let tail = history
        .get(history.len() - alternating..)
        .unwrap_or_default();
    let mut first_a = None;
    let mut first_b = None;
    let mut no_progress = true;
    for record in tail {
        let Some(hash) = record.outcome.as_ref().and_then(|o| o.hash) else {
            no_progress = false;
            break;
        };
        let first = if record.signature == last.signature {
            &mut first_a
        } else if record.signature == other {
            &mut first_b
        } else {
            no_progress = false;
            break;
        };
        if *first.get_or_insert(hash) != hash {
            no_progress = false;
            break;
        }
    }
    Some(PingPong {
        count: to_u32(alternating + 1),
        partner: Some(last.signature.clone()),
        no_progress: no_progress && first_a.is_some() && first_b.is_some(),
    })
}

/// The tool cycling a few argument patterns, each at least three times with one shared
/// no-progress outcome (the proposed pattern among them): (calls, patterns), or (0, 0).
fn argument_churn(history: &[Entry], proposed: &Signature) -> (u32, u32) {
    let mut variants: Vec<(&Signature, [u8; 32], u32)> = Vec::new();
    for record in history.iter().rev() {
        if record.signature.tool != proposed.tool {
            break;
        }
        let Some(outcome) = &record.outcome else {
            continue;
        };
        let Some(hash) = outcome.hash else {
            continue;
        };
        if !outcome.no_progress {
            break;
        }
        match variants
            .iter_mut()
            .find(|(s, _, _)| **s == record.signature)
        {
            Some((_, seen, _)) if *seen != hash => break,
            Some((_, _, n)) => *n += 1,
            None => variants.push((&record.signature, hash, 1)),
        }
    }
    let total: u32 = variants.iter().map(|v| v.2).sum();
    let stable: Vec<_> = variants
        .iter()
        .filter(|v| v.2 >= MIN_CALLS_PER_VARIANT)
        .collect();
    let shared = stable
        .first()
        .is_some_and(|f| stable.iter().all(|v| v.1 == f.1));
    let only_stable = stable.iter().map(|v| v.2).sum::<u32>() == total;
    let current = variants.iter().find(|v| v.0 == proposed).map_or(0, |v| v.2);
    if stable.len() > 1 && only_stable && shared && current >= MIN_CALLS_PER_VARIANT {
        (total, to_u32(stable.len()))
    } else {
        (0, 0)
    }
}
