//! kubectl's table layout, as every command's table uses it: no borders, no wrapping, columns
//! three spaces apart, the last one unpadded, trailing blanks trimmed.

use std::io::{self, Write};

use comfy_table::{ContentArrangement, Table};

/// An empty table in kubectl's style, styled only when `color` (ANSI colours are then kept even
/// off a terminal: the command decided).
pub(crate) fn kubectl_table(color: bool) -> Table {
    let mut table = Table::new();
    table
        .load_style(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table
}

/// Write `table` with kubectl's spacing: three spaces after every column but the last.
pub(crate) fn write_kubectl_table(mut table: Table, out: &mut dyn Write) -> io::Result<()> {
    let last = table.column_count().saturating_sub(1);
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, if i == last { 0 } else { 3 }));
    }
    for line in table.to_string().lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
