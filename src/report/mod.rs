//! What the guard reports about itself: counters by action, level and detector (`stats()`), and
//! the same counters as Prometheus text (`metrics()`).

pub mod metrics;
pub mod stats;
