//! The write guard against the real API server: a concurrent change between read and write is a
//! 409, after which the object is read and decided again; nothing is applied twice.

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};

use kube::api::{Patch, PatchParams};
use kubectl_arc::cluster::write::{Decision, DryRun, Outcome, WriteOptions, guarded_patch};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread")]
async fn a_conflict_rereads_and_redecides() {
    let kc = common::revision_kubeconfig();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-guard").await;
    common::create_ers(&client, &ns, "runners", json!({})).await;

    let decisions = AtomicU32::new(0);
    let opts = WriteOptions {
        dry_run: DryRun::None,
        field_manager: "kubectl-arc-test".into(),
        backoff: Default::default(),
        jitter_seed: 1,
    };
    let written = guarded_patch(
        &client,
        "ephemeralrunnersets",
        &ns,
        "runners",
        &opts,
        |obj| {
            let n = decisions.fetch_add(1, Ordering::SeqCst);
            let spec = obj.value["spec"]["actionableRevision"]
                .as_i64()
                .unwrap_or(0);
            if n == 0 {
                // Another writer bumps the revision after our read: our precondition is now stale.
                let (kc, ns) = (kc.clone(), ns.clone());
                std::thread::spawn(move || {
                    tokio::runtime::Runtime::new().unwrap().block_on(async {
                        let client = common::client(&kc).await;
                        common::ers_api(&client, &ns)
                            .patch(
                                "runners",
                                &PatchParams::default(),
                                &Patch::Merge(json!({"spec": {"actionableRevision": 10}})),
                            )
                            .await
                            .unwrap();
                    })
                })
                .join()
                .unwrap();
            }
            let want = spec + 1;
            let write = Decision::Patch {
                body: json!({"spec": {"actionableRevision": want}}),
                verify: Box::new(move |after: &Value| {
                    match after["spec"]["actionableRevision"].as_i64() {
                        Some(v) if v == want => Ok(()),
                        other => Err(format!("actionableRevision {other:?}, want {want}")),
                    }
                }),
            };
            (spec, write)
        },
    )
    .await;
    // The decision that comes back is the one the written attempt made: on the concurrent
    // writer's 10, not on the first read's 0.
    assert_eq!(written.decision, Some(10));
    let outcome = written.outcome.expect("the second attempt succeeds");
    assert_eq!(
        decisions.load(Ordering::SeqCst),
        2,
        "decided again after the 409"
    );
    match outcome {
        Outcome::Written { attempts, .. } => assert_eq!(attempts, 2),
        other => panic!("{other:?}"),
    }
    // Decided on the concurrent writer's 10, not on the stale 0: 11, and not 1.
    let stored = common::ers_api(&client, &ns).get("runners").await.unwrap();
    assert_eq!(stored.data["spec"]["actionableRevision"], json!(11));
}
