//! The guard's counters in the Prometheus text exposition format (version 0.0.4), for a host to
//! serve on its `/metrics` endpoint: calls by tool and action, interventions by detector, level
//! and action, records, live and evicted runs. Run ids are never labels (unbounded cardinality);
//! tool names are, bounded by [`crate::report::stats::MAX_TOOL_NAMES`].

use crate::json::number_format::write_uint;
use crate::report::stats::Counters;

/// Every metric's name starts with this.
const PREFIX: &str = "tool_loop_guard_";

/// The exposition text: `# HELP` and `# TYPE` for each metric, then its samples (series with a
/// zero count are left out, as a counter appears when first incremented). Written byte by byte,
/// without `core::fmt`, which would cost the `.wasm` kilobytes.
pub fn prometheus_text(counters: &Counters, live_runs: u64, evicted_runs: u64) -> String {
    let mut out = Vec::new();
    header(
        &mut out,
        "calls_total",
        "counter",
        "Tool calls checked, by tool and by the action of the verdict.",
    );
    counters.for_each_call(|tool, action, count| {
        sample(
            &mut out,
            "calls_total",
            &[("tool", tool), ("action", action)],
            count,
        )
    });
    header(
        &mut out,
        "interventions_total",
        "counter",
        "Verdicts that name a detector (warnings, refusals, stops), by detector, level and action.",
    );
    counters.for_each_intervention(|detector, level, action, count| {
        sample(
            &mut out,
            "interventions_total",
            &[("detector", detector), ("level", level), ("action", action)],
            count,
        )
    });
    header(
        &mut out,
        "records_total",
        "counter",
        "Tool outcomes recorded.",
    );
    sample(&mut out, "records_total", &[], counters.records);
    header(
        &mut out,
        "live_runs",
        "gauge",
        "Runs the guard keeps state for.",
    );
    sample(&mut out, "live_runs", &[], live_runs);
    header(
        &mut out,
        "evicted_runs_total",
        "counter",
        "Runs evicted because maxRuns was reached.",
    );
    sample(&mut out, "evicted_runs_total", &[], evicted_runs);
    // Only whole `&str` pieces were written.
    String::from_utf8(out).unwrap_or_default()
}

fn header(out: &mut Vec<u8>, name: &str, kind: &str, help: &str) {
    for (line, text) in [("# HELP ", help), ("# TYPE ", kind)] {
        for piece in [line, PREFIX, name, " ", text, "\n"] {
            out.extend_from_slice(piece.as_bytes());
        }
    }
}

fn sample(out: &mut Vec<u8>, name: &str, labels: &[(&str, &str)], value: u64) {
    out.extend_from_slice(PREFIX.as_bytes());
    out.extend_from_slice(name.as_bytes());
    for (i, (label, value)) in labels.iter().enumerate() {
        out.push(if i == 0 { b'{' } else { b',' });
        out.extend_from_slice(label.as_bytes());
        out.extend_from_slice(b"=\"");
        escape_label_value(out, value);
        out.push(b'"');
    }
    if !labels.is_empty() {
        out.push(b'}');
    }
    out.push(b' ');
    write_uint(value, out);
    out.push(b'\n');
}

/// A label value as the format requires: backslash, double quote and line feed escaped.
fn escape_label_value(out: &mut Vec<u8>, value: &str) {
    for &byte in value.as_bytes() {
        match byte {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            byte => out.push(byte),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        let mut out = Vec::new();
        escape_label_value(&mut out, "a\\b\"c\nd");
        assert_eq!(out, b"a\\\\b\\\"c\\nd");
    }

    #[test]
    fn an_empty_guard_has_every_metric_and_no_call_series() {
        let text = prometheus_text(&Counters::default(), 0, 0);
        for name in [
            "calls_total",
            "interventions_total",
            "records_total",
            "live_runs",
            "evicted_runs_total",
        ] {
            assert!(text.contains(&format!("# TYPE tool_loop_guard_{name} ")));
        }
        assert!(!text.contains("tool_loop_guard_calls_total{"));
        assert!(text.contains("tool_loop_guard_live_runs 0\n"));
    }

    #[test]
    fn tool_names_beyond_the_bound_are_counted_as_other() {
        use crate::report::stats::{MAX_TOOL_NAMES, OTHER_TOOLS};
        use crate::verdict::Answer;
        let mut counters = Counters::default();
        for i in 0..MAX_TOOL_NAMES + 5 {
            counters.count_call(&format!("tool-{i:03}"), &Answer::Allow);
        }
        counters.count_call("tool-000", &Answer::Allow);
        let mut series = Vec::new();
        counters
            .for_each_call(|tool, action, count| series.push((tool.to_string(), action, count)));
        let series: Vec<_> = series
            .iter()
            .map(|(t, a, c)| (t.as_str(), *a, *c))
            .collect();
        assert_eq!(series.len(), MAX_TOOL_NAMES + 1);
        assert!(
            series.contains(&("tool-000", "allow", 2)),
            "a counted name keeps its series"
        );
        assert!(series.contains(&(OTHER_TOOLS, "allow", 5)));
        assert!(
            series
                .iter()
                .zip(series.iter().skip(1))
                .all(|(a, b)| a.0 <= b.0),
            "sorted by name"
        );
    }
}
