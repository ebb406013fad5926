//! Nothing prints credentials or Secret data, even at -v=9: bearer tokens and client keys stay
//! out of the output, no Secret is ever read, and diff shows valueFrom references as written.
//! An invalid token is a clear "unauthorized".

use crate::common;

use crate::common::cli::exe;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::{Value, json};

/// A kubeconfig for the revision API server that authenticates with `token`.
fn token_kubeconfig(dir: &std::path::Path, token: &str, ns: &str) -> std::path::PathBuf {
    let admin = std::fs::read_to_string(common::revision_kubeconfig()).unwrap();
    let server = admin
        .lines()
        .find_map(|l| l.trim().strip_prefix("server: "))
        .unwrap()
        .to_string();
    let ca = admin
        .lines()
        .find_map(|l| l.trim().strip_prefix("certificate-authority: "))
        .unwrap()
        .to_string();
    let path = dir.join("token.kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: \"{server}\", certificate-authority: \"{ca}\"}}\n\
             users:\n- name: u\n  user: {{token: \"{token}\"}}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u, namespace: {ns}}}\ncurrent-context: c\n"
        ),
    )
    .unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn no_token_key_or_secret_in_any_output() {
    let kc = common::revision_kubeconfig();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-secrets").await;

    // A service account with the read role, and a real bearer token for it.
    let sa: k8s_openapi::api::core::v1::ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "arc-reader"}})).unwrap();
    Api::<k8s_openapi::api::core::v1::ServiceAccount>::namespaced(client.clone(), &ns)
        .create(&PostParams::default(), &sa)
        .await
        .unwrap();
    let role: k8s_openapi::api::rbac::v1::Role = serde_json::from_value(json!({
        "metadata": {"name": "arc-read"},
        "rules": [{"apiGroups": ["actions.github.com"], "resources": ["autoscalingrunnersets", "ephemeralrunnersets", "ephemeralrunners"], "verbs": ["get", "list", "watch"]}]
    }))
    .unwrap();
    Api::<k8s_openapi::api::rbac::v1::Role>::namespaced(client.clone(), &ns)
        .create(&PostParams::default(), &role)
        .await
        .unwrap();
    let binding: k8s_openapi::api::rbac::v1::RoleBinding = serde_json::from_value(json!({
        "metadata": {"name": "arc-read"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "arc-read"},
        "subjects": [{"kind": "ServiceAccount", "name": "arc-reader", "namespace": ns}]
    }))
    .unwrap();
    Api::<k8s_openapi::api::rbac::v1::RoleBinding>::namespaced(client.clone(), &ns)
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    let req = http::Request::post(format!("/api/v1/namespaces/{ns}/serviceaccounts/arc-reader/token"))
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 600}})).unwrap())
        .unwrap();
    let answer: Value = client.request(req).await.unwrap();
    let token = answer["status"]["token"].as_str().unwrap().to_string();
    assert!(token.len() > 100);

    // A scale set whose runners take a token from a Secret.
    let template = json!({"spec": {"containers": [{"name": "runner", "image": "img",
        "env": [{"name": "NPM_TOKEN", "valueFrom": {"secretKeyRef": {"name": "ci-tokens", "key": "npm"}}}]}]}});
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "runners", "annotations": {"runner-scale-set-id": "1"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret", "template": template}
    }))
    .unwrap();
    common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    common::create_ers(&client, &ns, "runners", json!({})).await;

    let dir = std::env::temp_dir().join(common::unique_name("arc-secrets"));
    std::fs::create_dir_all(&dir).unwrap();
    let tkc = token_kubeconfig(&dir, &token, &ns);
    let (code, out, err) = exe(&[
        "diff",
        "--kubeconfig",
        tkc.to_str().unwrap(),
        "-v=9",
        "--color",
        "never",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("GET https://") && err.contains("autoscalingrunnersets"),
        "-v=9 logs requests: {err}"
    );
    assert!(
        !out.contains(&token) && !err.contains(&token),
        "the bearer token was printed"
    );
    assert!(
        !err.contains("Bearer"),
        "an Authorization header was printed"
    );
    assert!(!err.contains("/secrets"), "a Secret was read: {err}");
    assert!(
        out.contains("secretKeyRef:")
            && out.contains("name: ci-tokens")
            && out.contains("key: npm"),
        "{out}"
    );

    // The admin kubeconfig uses a client certificate: its key never shows either.
    let admin_key_path = std::fs::read_to_string(&kc)
        .unwrap()
        .lines()
        .find_map(|l| l.trim().strip_prefix("client-key: ").map(str::to_string))
        .unwrap();
    let key = std::fs::read_to_string(&admin_key_path).unwrap();
    let key_body: String = key.lines().nth(1).unwrap().to_string();
    let (_, out, err) = exe(&[
        "diff",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "-n",
        &ns,
        "-v=9",
    ]);
    assert!(
        !out.contains(&key_body) && !err.contains(&key_body),
        "the client key was printed"
    );
    assert!(!err.contains("PRIVATE KEY"), "a private key was printed");

    // A token the server does not accept: a clear message, exit 2.
    let bad = token_kubeconfig(&dir, "not-a-valid-token", &ns);
    let (code, _, err) = exe(&["diff", "--kubeconfig", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unauthorized: the server does not accept these credentials"),
        "{err}"
    );
    assert!(!err.contains("not-a-valid-token"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
