//! The server's own monotonic counters as they stand in one sample, beside the rates the
//! figures derive from them: Prometheus `rate()`s these itself, over any window, and sees a
//! restart as a counter reset. A counter the server does not give (or an INNODB_METRICS
//! counter switched off) is `None` — absent from a scrape, never a 0.

use innodebt_server::sample::Sample;

/// Raw counters of one sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    /// Redo written since the server's log began (the current LSN).
    pub lsn_bytes: Option<u64>,
    /// `Innodb_buffer_pool_pages_flushed`: every page flushed, all sources.
    pub pages_flushed: Option<u64>,
    /// Flushed pages by source (`adaptive`, `lru`, `sync`, `background`, `neighbor`).
    pub flushed_by_source: Vec<(&'static str, u64)>,
    /// Records purged: delete-marked plus updated-externally (INNODB_METRICS).
    pub purged_records: Option<u64>,
    /// Undo log pages purge has processed (INNODB_METRICS `purge_undo_log_pages`).
    pub purged_undo_pages: Option<u64>,
}

impl Counters {
    /// `lsn` is the figures' current LSN (the flavour picks its source).
    pub fn read(s: &Sample, lsn: Option<u64>) -> Counters {
        let metric = |name: &str| s.metric(name).and_then(|v| u64::try_from(v).ok());
        // The counters the flush rates read; LRU has a status-variable twin where the
        // metric is off, as its rate does.
        let flushed_by_source = [
            ("adaptive", metric("buffer_flush_adaptive_total_pages")),
            (
                "lru",
                metric("buffer_LRU_batch_flush_total_pages")
                    .or_else(|| s.status("Innodb_buffer_pool_pages_LRU_flushed")),
            ),
            ("sync", metric("buffer_flush_sync_total_pages")),
            ("background", metric("buffer_flush_background_total_pages")),
            ("neighbor", metric("buffer_flush_neighbor_total_pages")),
        ]
        .into_iter()
        .filter_map(|(source, v)| Some((source, v?)))
        .collect();
        Counters {
            lsn_bytes: lsn,
            pages_flushed: s.status("Innodb_buffer_pool_pages_flushed"),
            flushed_by_source,
            purged_records: metric("purge_del_mark_records")
                .zip(metric("purge_upd_exist_or_extern_records"))
                .map(|(a, b)| a.saturating_add(b)),
            purged_undo_pages: metric("purge_undo_log_pages"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use innodebt_server::sample::MetricValue;

    fn on(count: i64) -> MetricValue {
        MetricValue {
            count,
            enabled: true,
        }
    }

    #[test]
    fn only_what_the_server_counts_is_read() {
        let mut s = Sample::new(chrono::Utc::now(), 0.0);
        s.status
            .insert("Innodb_buffer_pool_pages_flushed".into(), 900);
        s.metrics
            .insert("buffer_flush_adaptive_total_pages".into(), on(40));
        s.metrics.insert(
            "buffer_flush_sync_total_pages".into(),
            MetricValue {
                count: 7,
                enabled: false,
            },
        );
        s.metrics.insert("purge_del_mark_records".into(), on(5));
        s.metrics.insert("purge_undo_log_pages".into(), on(12));
        let c = Counters::read(&s, Some(123_456));
        assert_eq!(c.lsn_bytes, Some(123_456));
        assert_eq!(c.pages_flushed, Some(900));
        // A switched-off counter is absent, not its frozen count.
        assert_eq!(c.flushed_by_source, vec![("adaptive", 40)]);
        // Half of the purged records is not the number of purged records.
        assert_eq!(c.purged_records, None);
        assert_eq!(c.purged_undo_pages, Some(12));
        s.metrics
            .insert("purge_upd_exist_or_extern_records".into(), on(3));
        s.status
            .insert("Innodb_buffer_pool_pages_LRU_flushed".into(), 30);
        let c = Counters::read(&s, None);
        assert_eq!(c.purged_records, Some(8));
        assert_eq!(c.flushed_by_source, vec![("adaptive", 40), ("lru", 30)]);
        assert_eq!(
            Counters::read(&Sample::new(chrono::Utc::now(), 0.0), None),
            Counters::default()
        );
    }
}
