//! The EphemeralRunners listed as a Table (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`,
//! `includeObject=Metadata`): each row carries the CRD's printer columns and the runner's
//! metadata, not its `spec` (the set's whole runner spec, copied onto every runner), so the API
//! server encodes a fraction of what a plain list makes it encode (on the test bed, 5,000 runners
//! of the shipped example: 0.6 s instead of 1.3 to 2.0 s; `includeObject=None` would drop the
//! namespace and the owner references the forecast needs).
//!
//! The forecast reads seven fields of a runner's status, and ARC's EphemeralRunner CRD of 0.13.0
//! on prints each as a column. The Table is used only when each column is there with the
//! `jsonPath` it must have, which the API server states in the column's description when the CRD
//! gives none (apiextensions-apiserver's `tableconvertor.New`: "Custom resource definition
//! column (in JSONPath format): PATH"; ARC's CRDs give none). Otherwise, and for every runner
//! whose row cannot say exactly what the whole object says, the runners are read whole:
//! - `status.jobRequestId`, the only job field 0.9.0 to 0.12.1's listener writes, has no column. A
//!   runner in phase Running without `jobId` is idle only if it has none, so such a runner is read
//!   whole when its managed fields record a writer of `status.jobRequestId` (or it has none);
//!   the listener of 0.13.0 on writes `jobId` with it;
//! - a number column is sent as a Go `float64` (`cellForJSONValue`), exact only below 2^53.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::RunnerRead;

/// The media type of a Table of metadata-only rows.
pub(crate) const ACCEPT_TABLE: &str = "application/json;as=Table;g=meta.k8s.io;v=v1";

/// The status fields the forecast reads, each by its printer column of ARC's EphemeralRunner
/// CRD (0.13.0 to 0.14.2 and 2ee6b3b8: `+kubebuilder:printcolumn` of `EphemeralRunner`).
const COLUMNS: [(&str, &str); 7] = [
    ("RunnerId", "runnerId"),
    ("Phase", "phase"),
    ("JobRepository", "jobRepositoryName"),
    ("JobWorkflowRef", "jobWorkflowRef"),
    ("WorkflowRunId", "workflowRunId"),
    ("JobDisplayName", "jobDisplayName"),
    ("JobId", "jobId"),
];

/// What the API server writes as a CRD column's description when the CRD gives none.
const DESCRIPTION: &str = "Custom resource definition column (in JSONPath format): ";

/// The largest integer a `float64` holds exactly.
const EXACT: u64 = 1 << 53;

/// A page of the Table.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TablePage {
    #[serde(default)]
    pub(super) metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta,
    #[serde(default)]
    column_definitions: Vec<Column>,
    #[serde(default)]
    rows: Vec<Row>,
}

#[derive(Debug, Deserialize)]
struct Column {
    name: String,
    #[serde(default)]
    description: String,
}

#[derive(Debug, Deserialize)]
struct Row {
    cells: Vec<Box<RawValue>>,
    #[serde(default)]
    object: Option<RowObject>,
}

/// The row's `PartialObjectMetadata`.
#[derive(Debug, Deserialize)]
struct RowObject {
    #[serde(default)]
    metadata: RowMeta,
}

/// The parts of the row's metadata read: [`super::RawRunnerMeta`]'s, and the managed fields.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RowMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    deletion_timestamp: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    #[serde(default)]
    owner_references: Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>>,
    /// Absent: the object has no managed fields (then nothing says `jobRequestId` is unset).
    #[serde(default)]
    managed_fields: Option<Vec<Managed>>,
}

/// A managed-fields entry, read only as far as `f:status` → `f:jobRequestId`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Managed {
    #[serde(default)]
    fields_v1: Option<ManagedFields>,
}

#[derive(Debug, Deserialize)]
struct ManagedFields {
    #[serde(rename = "f:status", default)]
    status: Option<StatusFields>,
}

#[derive(Debug, Deserialize)]
struct StatusFields {
    #[serde(rename = "f:jobRequestId", default)]
    job_request_id: Option<IgnoredAny>,
}

/// The cells of [`COLUMNS`] in a page's rows; `None` when a column is missing or not the one
/// expected.
fn positions(columns: &[Column]) -> Option<[usize; 7]> {
    let mut at = [0; 7];
    for (slot, (name, field)) in at.iter_mut().zip(COLUMNS) {
        let expected = format!("{DESCRIPTION}.status.{field}");
        *slot = columns
            .iter()
            .position(|c| c.name == name && c.description == expected)?;
    }
    Some(at)
}

/// One row read: the runner, or its name when only the whole object says it exactly.
pub(super) enum RowRead {
    Runner(RunnerRead),
    ReadWhole { namespace: String, name: String },
}

impl TablePage {
    /// The page's rows; `None` when its columns are not the ones the forecast needs.
    pub(super) fn rows(self) -> Option<Vec<RowRead>> {
        let at = positions(&self.column_definitions)?;
        let mut out = Vec::with_capacity(self.rows.len());
        for row in self.rows {
            out.push(row_read(row, &at)?);
        }
        Some(out)
    }
}

fn row_read(row: Row, at: &[usize; 7]) -> Option<RowRead> {
    let RowMeta {
        name,
        namespace,
        deletion_timestamp,
        owner_references,
        managed_fields,
    } = row.object?.metadata;
    let meta = super::RawRunnerMeta {
        name,
        namespace,
        deletion_timestamp,
        owner_references,
    };
    let mut status = serde_json::Map::new();
    let mut exact = true;
    for (&i, (_, field)) in at.iter().zip(COLUMNS) {
        let cell: serde_json::Value = serde_json::from_str(row.cells.get(i)?.get()).ok()?;
        if cell.is_number() {
            exact &= cell.as_u64().is_some_and(|n| n < EXACT);
        }
        if !cell.is_null() {
            status.insert(field.to_string(), cell);
        }
    }
    let job = status.get("jobId").and_then(|j| j.as_str());
    let looks_idle = status.get("phase").and_then(|p| p.as_str()) == Some("Running")
        && job.unwrap_or("").is_empty();
    if looks_idle && request_id_written(managed_fields.as_deref()) {
        exact = false;
    }
    let mut read = RunnerRead::from(super::RawRunner {
        metadata: meta,
        status: None,
    });
    if !exact {
        return Some(RowRead::ReadWhole {
            namespace: read.namespace,
            name: read.name,
        });
    }
    read.status = (!status.is_empty())
        .then(|| RawValue::from_string(serde_json::Value::Object(status).to_string()).ok())
        .flatten();
    Some(RowRead::Runner(read))
}

/// Whether a writer of `status.jobRequestId` is recorded, or no managed fields are there to
/// say that none is.
fn request_id_written(managed: Option<&[Managed]>) -> bool {
    match managed {
        None | Some([]) => true,
        Some(entries) => entries.iter().any(|m| {
            (m.fields_v1.as_ref())
                .and_then(|f| f.status.as_ref())
                .is_some_and(|s| s.job_request_id.is_some())
        }),
    }
}

/// At most this many runners are read one by one after the Table; more, and the list is read
/// whole instead.
const READ_ONE_BY_ONE: usize = 64;

/// The EphemeralRunners of `namespace` (all when `None`) from the Table; `None` when the Table
/// cannot say them exactly (a column missing or not as expected, too many runners to read one by
/// one) or cannot be read at all: the caller lists them whole, and reports that list's errors.
pub(super) async fn list(
    client: &kube::Client,
    namespace: Option<&str>,
) -> Option<Vec<RunnerRead>> {
    let plural = crate::core::arc::EPHEMERAL_RUNNERS;
    let request = kube::core::Request::new(super::arc_path(plural, namespace));
    let mut params = kube::api::ListParams::default().limit(super::PAGE_SIZE);
    let (mut rows, mut whole) = (Vec::new(), 0);
    loop {
        let mut req = request.list(&params).ok()?;
        let uri = format!("{}&includeObject=Metadata", req.uri());
        *req.uri_mut() = uri.parse().ok()?;
        (req.headers_mut()).insert(
            http::header::ACCEPT,
            http::HeaderValue::from_static(ACCEPT_TABLE),
        );
        let page: TablePage =
            super::retry::read_with_retry(super::retry::ReadRetry::default(), || {
                client.request(req.clone())
            })
            .await
            .ok()?;
        let next = page.metadata.continue_.clone().filter(|t| !t.is_empty());
        for row in page.rows()? {
            whole += usize::from(matches!(row, RowRead::ReadWhole { .. }));
            rows.push(row);
        }
        if whole > READ_ONE_BY_ONE {
            return None;
        }
        match next {
            Some(token) => params.continue_token = Some(token),
            None => break,
        }
    }
    tracing::debug!(
        ?namespace,
        rows = rows.len(),
        whole,
        "listed the runners as a Table"
    );
    // In the list's order, as the whole list gives them.
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        match row {
            RowRead::Runner(r) => out.push(r),
            RowRead::ReadWhole { namespace, name } => {
                // Gone since the list: as a list taken a moment later would say.
                if let Some(o) = super::get(client, plural, &namespace, &name).await.ok()? {
                    let kind = crate::core::arc::KIND_EPHEMERAL_RUNNER;
                    out.push(RunnerRead::from(&super::object_from_cluster(kind, o)));
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn column(name: &str, path: &str) -> serde_json::Value {
        json!({"name": name, "type": "string", "format": "",
               "description": format!("{DESCRIPTION}{path}"), "priority": 0})
    }

    fn columns() -> Vec<serde_json::Value> {
        let mut c =
            vec![json!({"name": "Name", "type": "string", "description": "Name must be unique"})];
        c.push(column("GitHub Config URL", ".spec.githubConfigUrl"));
        for (name, field) in COLUMNS {
            c.push(column(name, &format!(".status.{field}")));
        }
        c
    }

    fn page(columns: Vec<serde_json::Value>, rows: Vec<serde_json::Value>) -> TablePage {
        serde_json::from_value(json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "9"}, "columnDefinitions": columns, "rows": rows}))
        .unwrap()
    }

    /// A row as the API server writes it: Name, GitHub Config URL, then COLUMNS' cells.
    fn row(
        name: &str,
        cells: [serde_json::Value; 7],
        managed: serde_json::Value,
    ) -> serde_json::Value {
        let mut all = vec![json!(name), json!("https://github.com/acme")];
        all.extend(cells);
        let mut meta = json!({"name": name, "namespace": "ns",
            "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1",
                "kind": "EphemeralRunnerSet", "name": "set", "uid": "u", "controller": true}]});
        if !managed.is_null() {
            meta["managedFields"] = managed;
        }
        json!({"cells": all, "object": {"kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1", "metadata": meta}})
    }

    fn status_manager(fields: serde_json::Value) -> serde_json::Value {
        json!([{"manager": "m", "operation": "Update", "subresource": "status",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:status": fields}}])
    }

    fn status_of(r: &RowRead) -> serde_json::Value {
        match r {
            RowRead::Runner(r) => r.status.as_ref().map_or(serde_json::Value::Null, |s| {
                serde_json::from_str(s.get()).unwrap()
            }),
            RowRead::ReadWhole { name, .. } => json!({ "readWhole": name }),
        }
    }

    #[test]
    fn rows_give_the_status_fields_and_the_owner() {
        let n = serde_json::Value::Null;
        let busy = [
            json!(4),
            json!("Running"),
            json!("acme/api"),
            json!("acme/api/.github/workflows/ci.yaml@refs/heads/main"),
            json!(19876543210u64),
            json!("build"),
            json!("j-4"),
        ];
        let pending = [
            n.clone(),
            json!("Pending"),
            n.clone(),
            n.clone(),
            n.clone(),
            n.clone(),
            n.clone(),
        ];
        let none = [
            n.clone(),
            n.clone(),
            n.clone(),
            n.clone(),
            n.clone(),
            n.clone(),
            n.clone(),
        ];
        let managed = status_manager(json!({"f:phase": {}, "f:jobId": {}, "f:jobRequestId": {}}));
        let rows = page(
            columns(),
            vec![
                row("busy", busy, managed.clone()),
                row("pending", pending, managed),
                row("bare", none, n.clone()),
            ],
        )
        .rows()
        .unwrap();
        assert_eq!(
            status_of(&rows[0]),
            json!({"runnerId": 4, "phase": "Running", "jobRepositoryName": "acme/api",
                "jobWorkflowRef": "acme/api/.github/workflows/ci.yaml@refs/heads/main",
                "workflowRunId": 19876543210u64, "jobDisplayName": "build", "jobId": "j-4"})
        );
        assert_eq!(status_of(&rows[1]), json!({"phase": "Pending"}));
        assert_eq!(status_of(&rows[2]), n);
        let RowRead::Runner(r) = &rows[0] else {
            panic!()
        };
        assert_eq!((r.namespace.as_str(), r.name.as_str()), ("ns", "busy"));
        assert_eq!(r.controller.as_ref().unwrap().name, "set");
    }

    /// What only the whole object says exactly: a runner that looks idle while a writer of
    /// `jobRequestId` is recorded (or no managed fields are there), a number at or above 2^53.
    #[test]
    fn rows_that_cannot_say_it_exactly_are_read_whole() {
        let n = serde_json::Value::Null;
        let idle = || {
            [
                json!(7),
                json!("Running"),
                n.clone(),
                n.clone(),
                n.clone(),
                n.clone(),
                n.clone(),
            ]
        };
        let by_old_listener = status_manager(json!({"f:phase": {}, "f:jobRequestId": {}}));
        let by_controller = status_manager(json!({"f:phase": {}, "f:runnerId": {}}));
        let mut huge = idle();
        huge[0] = json!(9007199254740992u64);
        let rows = page(
            columns(),
            vec![
                row("old-listener", idle(), by_old_listener),
                row("no-managed-fields", idle(), n.clone()),
                row("idle", idle(), by_controller.clone()),
                row("huge", huge, by_controller),
            ],
        )
        .rows()
        .unwrap();
        let got: Vec<_> = rows.iter().map(status_of).collect();
        assert_eq!(
            got,
            [
                json!({"readWhole": "old-listener"}),
                json!({"readWhole": "no-managed-fields"}),
                json!({"runnerId": 7, "phase": "Running"}),
                json!({"readWhole": "huge"}),
            ]
        );
    }

    /// A column missing (ARC's CRDs up to 0.12.1 have no JobId column) or given another path or
    /// a description of its own: the Table is not used.
    #[test]
    fn columns_not_as_expected_refuse_the_table() {
        let mut missing = columns();
        missing.retain(|c| c["name"] != "JobId");
        assert!(page(missing, vec![]).rows().is_none());
        let mut moved = columns();
        moved[4] = column("Phase", ".status.state");
        assert!(page(moved, vec![]).rows().is_none());
        let mut described = columns();
        described[8]["description"] = json!("the job");
        assert!(page(described, vec![]).rows().is_none());
        assert!(page(columns(), vec![]).rows().is_some());
    }
}
