package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EphemeralRunner mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunner_types.go.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=".spec.githubConfigUrl",name="GitHub Config URL",type=string
// +kubebuilder:printcolumn:JSONPath=".status.runnerId",name=RunnerId,type=number
// +kubebuilder:printcolumn:JSONPath=".status.phase",name=Phase,type=string
// +kubebuilder:printcolumn:JSONPath=".status.jobRepositoryName",name=JobRepository,type=string
// +kubebuilder:printcolumn:JSONPath=".status.jobWorkflowRef",name=JobWorkflowRef,type=string
// +kubebuilder:printcolumn:JSONPath=".status.workflowRunId",name=WorkflowRunId,type=number
// +kubebuilder:printcolumn:JSONPath=".status.jobDisplayName",name=JobDisplayName,type=string
// +kubebuilder:printcolumn:JSONPath=".status.jobId",name=JobId,type=string
// +kubebuilder:printcolumn:JSONPath=".status.message",name=Message,type=string
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type EphemeralRunner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EphemeralRunnerSpec   `json:"spec,omitempty"`
	Status EphemeralRunnerStatus `json:"status,omitempty"`
}

// EphemeralRunnerSpec mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunner_types.go.
// The legacy integrity hash covers this struct: its fields, their order and
// the k8s.io/api types it holds must stay exactly ARC's. The schema requires
// githubConfigUrl, githubConfigSecret and runnerScaleSetId although Go omits
// them when empty.
type EphemeralRunnerSpec struct {
	// +required
	GitHubConfigURL string `json:"githubConfigUrl,omitempty"`
	// +required
	GitHubConfigSecret string `json:"githubConfigSecret,omitempty"`
	// +optional
	GitHubServerTLS *TLSConfig `json:"githubServerTLS,omitempty"`
	// +required
	RunnerScaleSetID int `json:"runnerScaleSetId,omitempty"`
	// +optional
	Proxy *ProxyConfig `json:"proxy,omitempty"`
	// +optional
	ProxySecretRef string `json:"proxySecretRef,omitempty"`
	// +optional
	VaultConfig *VaultConfig `json:"vaultConfig,omitempty"`
	// +optional
	EphemeralRunnerConfigSecretMetadata *ResourceMeta `json:"ephemeralRunnerConfigSecretMetadata,omitempty"`

	corev1.PodTemplateSpec `json:",inline"`
}

// EphemeralRunnerStatus mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunner_types.go:
// what ARC's controllers record about one runner. Every field is optional.
type EphemeralRunnerStatus struct {
	// Ready is true while the runner is online.
	// +optional
	Ready bool `json:"ready"`
	// Phase is where the runner is in its life: Pending, Running, Succeeded,
	// Failed or Outdated (a superset of the pod phases).
	// +optional
	Phase EphemeralRunnerPhase `json:"phase,omitempty"`
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// RunnerID is the runner's id with GitHub; 0 until it has registered.
	// +optional
	RunnerID int `json:"runnerId,omitempty"`
	// +optional
	RunnerName string `json:"runnerName,omitempty"`
	// Failures holds the time of each failed start, by pod uid.
	// +optional
	Failures map[string]metav1.Time `json:"failures,omitempty"`
	// +optional
	JobRequestID int64 `json:"jobRequestId,omitempty"`
	// JobID is set while the runner runs a job: a runner without one is idle.
	// +optional
	JobID string `json:"jobId,omitempty"`
	// +optional
	JobRepositoryName string `json:"jobRepositoryName,omitempty"`
	// +optional
	JobWorkflowRef string `json:"jobWorkflowRef,omitempty"`
	// +optional
	WorkflowRunID int64 `json:"workflowRunId,omitempty"`
	// +optional
	JobDisplayName string `json:"jobDisplayName,omitempty"`
}

// EphemeralRunnerPhase mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunner_types.go.
type EphemeralRunnerPhase string

// EphemeralRunnerList mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunner_types.go.
//
// +kubebuilder:object:root=true
type EphemeralRunnerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EphemeralRunner `json:"items"`
}
