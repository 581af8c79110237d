//! More rollback segments for writers that queue on too few: `SET GLOBAL
//! innodb_rollback_segments` where the server creates the missing segments online (MySQL /
//! Percona 8.0+, `innodb_rollback_segments_update` → `trx_rseg_adjust_rollback_segments`),
//! with `SET PERSIST` as the alternative; elsewhere a refusal that says the flavour's way
//! (a restart; MariaDB ≥ 10.5: fixed at 128).

use super::{ChangePlan, PlanAction, PlanContext, Refusal};
use innodebt_engine::figures::Rollback;
use innodebt_server::flavor::{MAX_ROLLBACK_SEGMENTS, RsegWayOut};

const VARIABLE: &str = "innodb_rollback_segments";

/// Plans raising the rollback segments to the flavour's most (128 per tablespace).
pub fn plan_rollback_segments(r: &Rollback, ctx: &PlanContext) -> Result<ChangePlan, Refusal> {
    if ctx.read_only {
        return Err(Refusal::ReadOnly);
    }
    let server = ctx.flavor.display_name();
    if r.segments_fixed {
        return Err(Refusal::Unsupported {
            what: "changing the number of rollback segments (fixed at 128, TRX_SYS_N_RSEGS)".into(),
            server,
        });
    }
    let current = r.segments_setting.ok_or_else(|| Refusal::CurrentUnknown {
        variable: VARIABLE.into(),
    })?;
    let way = |to| RsegWayOut::Restart {
        variable: VARIABLE,
        to,
    };
    let layout_way = if ctx.flavor.is_mariadb() || ctx.flavor.major < 8 {
        way(MAX_ROLLBACK_SEGMENTS)
    } else if current >= MAX_ROLLBACK_SEGMENTS {
        RsegWayOut::AddUndoTablespace
    } else {
        RsegWayOut::SetGlobal {
            to: MAX_ROLLBACK_SEGMENTS,
        }
    };
    let to = match layout_way {
        RsegWayOut::SetGlobal { to } => to,
        RsegWayOut::AddUndoTablespace => {
            return Err(Refusal::AtLimit {
                variable: VARIABLE.into(),
                value: current,
                which: "maximum (CREATE UNDO TABLESPACE adds 128 more segments)",
            });
        }
        other => {
            return Err(Refusal::NotDynamic {
                variable: ctx.flavor.rseg_variable().unwrap_or(VARIABLE).into(),
                server,
                how: other.words(&ctx.flavor),
            });
        }
    };
    let spaces = r.undo_tablespaces.unwrap_or(1).max(1);
    let info = vec![format!(
        "Writers share {} rollback segment{} ({current} per undo tablespace × {spaces}).",
        r.segments.unwrap_or(current),
        if r.segments == Some(1) { "" } else { "s" }
    )];
    let effect_line = format!(
        "The server creates the missing segments online: {} in all, writers spread over them \
         round robin, so fewer share each segment's latch.",
        to.saturating_mul(spaces)
    );
    let verify_sql = format!("SELECT @@GLOBAL.{VARIABLE}");
    let alternative = ChangePlan {
        title: format!("Set {VARIABLE} and keep it across restarts"),
        action: PlanAction::SetPersist {
            variable: VARIABLE.into(),
            value: to,
        },
        variable: VARIABLE.into(),
        current: Some(current.to_string()),
        new: Some(to.to_string()),
        sql: vec![format!("SET PERSIST {VARIABLE} = {to}")],
        info_lines: Vec::new(),
        scope_lines: vec![
            "Takes effect now and is written to mysqld-auto.cnf: it survives restarts \
             (RESET PERSIST undoes that)."
                .into(),
        ],
        effect_line: effect_line.clone(),
        warning_lines: Vec::new(),
        privilege: ctx.flavor.set_global_privilege().into(),
        verify_sql: verify_sql.clone(),
        alternative: None,
    };
    Ok(ChangePlan {
        title: format!("Set {VARIABLE}"),
        action: PlanAction::SetGlobal {
            variable: VARIABLE.into(),
            value: to,
        },
        variable: VARIABLE.into(),
        current: Some(current.to_string()),
        new: Some(to.to_string()),
        sql: vec![format!("SET GLOBAL {VARIABLE} = {to}")],
        info_lines: info,
        scope_lines: vec![
            "Runtime only: lost at the next restart (the segments created stay on disk).".into(),
            "SET PERSIST would also write it to mysqld-auto.cnf (offered as the alternative)."
                .into(),
        ],
        effect_line,
        warning_lines: Vec::new(),
        privilege: ctx.flavor.set_global_privilege().into(),
        verify_sql,
        alternative: Some(Box::new(alternative)),
    })
}
