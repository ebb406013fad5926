//! The test bed itself, against the real kube-apiservers that `scripts/test.sh` starts: optimistic
//! locking, schema pruning of the revision fields, the status subresource, and RBAC.

use crate::common;

use kube::api::{Patch, PatchParams};
use serde_json::json;

fn status_code(err: &kube::Error) -> Option<u16> {
    match err {
        kube::Error::Api(status) => Some(status.code),
        _ => None,
    }
}

#[tokio::test]
async fn merge_patch_with_stale_resource_version_conflicts() {
    let client = common::client(&common::revision_kubeconfig()).await;
    let ns = common::namespace(&client, "arc-conflict").await;
    let api = common::ers_api(&client, &ns);
    let created = common::create_ers(
        &client,
        &ns,
        "runners",
        json!({"githubConfigUrl": "https://github.com/o"}),
    )
    .await;
    let stale = created.metadata.resource_version.clone().unwrap();
    // Set actionableRevision on the precondition that the resourceVersion is still `stale`.
    let patch_if_unchanged = async |revision: i64| {
        api.patch(
            "runners",
            &PatchParams::default(),
            &Patch::Merge(json!({
                "metadata": {"resourceVersion": stale},
                "spec": {"actionableRevision": revision},
            })),
        )
        .await
    };

    // Current resourceVersion: the precondition holds and the write lands.
    let patched = patch_if_unchanged(1)
        .await
        .expect("patch with the current resourceVersion");
    assert_eq!(patched.data["spec"]["actionableRevision"], json!(1));
    assert_ne!(
        patched.metadata.resource_version.as_deref(),
        Some(stale.as_str())
    );

    // The same precondition again is now stale: 409 Conflict, nothing written.
    let err = patch_if_unchanged(2)
        .await
        .expect_err("a stale resourceVersion must conflict");
    assert_eq!(status_code(&err), Some(409), "{err}");
    let now = api.get("runners").await.unwrap();
    assert_eq!(now.data["spec"]["actionableRevision"], json!(1));
}

#[tokio::test]
async fn legacy_crd_prunes_actionable_revision_and_revision_crd_keeps_it() {
    for (kubeconfig, era) in [
        (common::legacy_kubeconfig(), "legacy"),
        (common::revision_kubeconfig(), "revision"),
    ] {
        let client = common::client(&kubeconfig).await;
        let ns = common::namespace(&client, "arc-prune").await;
        let api = common::ers_api(&client, &ns);
        let created = common::create_ers(&client, &ns, "runners", json!({})).await;
        let rv = created.metadata.resource_version.clone().unwrap();
        let patch = Patch::Merge(json!({"spec": {"actionableRevision": 5}}));

        // Strict field validation turns silent pruning into an error.
        let strict = api
            .patch(
                "runners",
                &PatchParams::default().validation_strict(),
                &patch,
            )
            .await;
        // Without it, the write answers 200 either way.
        let lax = api
            .patch("runners", &PatchParams::default(), &patch)
            .await
            .expect("non-strict patch answers 200");
        let read = api.get("runners").await.unwrap();
        match era {
            "legacy" => {
                let err = strict.expect_err("strict validation must refuse an unknown field");
                assert_eq!(status_code(&err), Some(422), "{err}");
                assert!(err.to_string().contains("actionableRevision"), "{err}");
                assert_eq!(read.data["spec"].get("actionableRevision"), None, "pruned");
                assert_eq!(lax.metadata.resource_version.as_deref(), Some(rv.as_str()));
            }
            _ => {
                strict.expect("strict patch with the revision CRD");
                assert_eq!(read.data["spec"]["actionableRevision"], json!(5));
            }
        }
    }
}

#[tokio::test]
async fn status_is_a_subresource() {
    let client = common::client(&common::revision_kubeconfig()).await;
    let ns = common::namespace(&client, "arc-status").await;
    common::create_ers(&client, &ns, "runners", json!({})).await;
    let api = common::ers_api(&client, &ns);

    // Through the main resource, status is ignored.
    api.patch(
        "runners",
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"currentReplicas": 0, "appliedActionableRevision": 3}})),
    )
    .await
    .unwrap();
    let read = api.get("runners").await.unwrap();
    assert_eq!(
        read.data
            .get("status")
            .and_then(|s| s.get("appliedActionableRevision")),
        None
    );

    // Through /status it lands, and spec is ignored there.
    api.patch_status(
        "runners",
        &PatchParams::default().validation_strict(),
        &Patch::Merge(json!({
            "spec": {"actionableRevision": 9},
            "status": {"currentReplicas": 0, "appliedActionableRevision": 3},
        })),
    )
    .await
    .unwrap();
    let read = api.get("runners").await.unwrap();
    assert_eq!(read.data["status"]["appliedActionableRevision"], json!(3));
    assert_eq!(read.data["spec"].get("actionableRevision"), None);
}

#[tokio::test]
async fn restricted_user_may_read_but_not_patch() {
    let admin = common::client(&common::revision_kubeconfig()).await;
    let ns = common::namespace(&admin, "arc-rbac").await;
    common::create_ers(&admin, &ns, "runners", json!({})).await;

    let restricted = common::client(&common::restricted_kubeconfig()).await;
    let api = common::ers_api(&restricted, &ns);
    api.get("runners")
        .await
        .expect("the read-only user may get");
    let err = api
        .patch(
            "runners",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"actionableRevision": 1}})),
        )
        .await
        .expect_err("the read-only user must not patch");
    assert_eq!(status_code(&err), Some(403), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("patch") && msg.contains("ephemeralrunnersets"),
        "{msg}"
    );
}

#[tokio::test]
async fn wrong_type_and_bad_resource_version_are_rejected() {
    let client = common::client(&common::revision_kubeconfig()).await;
    let ns = common::namespace(&client, "arc-types").await;
    common::create_ers(&client, &ns, "runners", json!({})).await;
    let api = common::ers_api(&client, &ns);
    let err = api
        .patch(
            "runners",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"actionableRevision": "five"}})),
        )
        .await
        .expect_err("a string revision is invalid");
    assert_eq!(status_code(&err), Some(422), "{err}");

    // A resourceVersion that is not a number is a server error, not a conflict: callers must not
    // treat it as "re-read and retry".
    let err = api
        .patch(
            "runners",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"resourceVersion": "abc"}, "spec": {"replicas": 1}})),
        )
        .await
        .expect_err("a malformed resourceVersion is refused");
    assert_ne!(status_code(&err), Some(409), "{err}");
}
