package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kubectl-arc/oracle/arc/vault"
)

// AutoscalingRunnerSet mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
// ARC's printer columns name two status fields its schema does not have
// (finishedEphemeralRunners, deletingEphemeralRunners): kept as ARC has them.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=".spec.minRunners",name=Minimum Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".spec.maxRunners",name=Maximum Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.currentRunners",name=Current Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.phase",name=Phase,type=string
// +kubebuilder:printcolumn:JSONPath=".status.pendingEphemeralRunners",name=Pending Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.runningEphemeralRunners",name=Running Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.finishedEphemeralRunners",name=Finished Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.deletingEphemeralRunners",name=Deleting Runners,type=integer
type AutoscalingRunnerSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AutoscalingRunnerSetSpec   `json:"spec,omitempty"`
	Status AutoscalingRunnerSetStatus `json:"status,omitempty"`
}

// AutoscalingRunnerSetSpec mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
// Every field is optional in the schema (omitempty, no +required).
type AutoscalingRunnerSetSpec struct {
	GitHubConfigUrl    string `json:"githubConfigUrl,omitempty"`
	GitHubConfigSecret string `json:"githubConfigSecret,omitempty"`
	// +optional
	RunnerGroup string `json:"runnerGroup,omitempty"`
	// +optional
	RunnerScaleSetName string `json:"runnerScaleSetName,omitempty"`
	// +optional
	RunnerScaleSetLabels []string `json:"runnerScaleSetLabels,omitempty"`
	// +optional
	Proxy *ProxyConfig `json:"proxy,omitempty"`
	// +optional
	GitHubServerTLS *TLSConfig `json:"githubServerTLS,omitempty"`
	// +optional
	VaultConfig *VaultConfig           `json:"vaultConfig,omitempty"`
	Template    corev1.PodTemplateSpec `json:"template,omitempty"`
	// +optional
	AutoscalingListenerMetadata *ResourceMeta `json:"autoscalingListener,omitempty"`
	// +optional
	ListenerMetrics *MetricsConfig `json:"listenerMetrics,omitempty"`
	// +optional
	ListenerTemplate *corev1.PodTemplateSpec `json:"listenerTemplate,omitempty"`
	// +optional
	ListenerServiceAccountMetadata *ResourceMeta `json:"listenerServiceAccountMetadata,omitempty"`
	// +optional
	ListenerRoleMetadata *ResourceMeta `json:"listenerRoleMetadata,omitempty"`
	// +optional
	ListenerRoleBindingMetadata *ResourceMeta `json:"listenerRoleBindingMetadata,omitempty"`
	// +optional
	ListenerConfigSecretMetadata *ResourceMeta `json:"listenerConfigSecretMetadata,omitempty"`
	// +optional
	EphemeralRunnerSetMetadata *ResourceMeta `json:"ephemeralRunnerSetMetadata,omitempty"`
	// +optional
	EphemeralRunnerMetadata *ResourceMeta `json:"ephemeralRunnerMetadata,omitempty"`
	// +optional
	EphemeralRunnerConfigSecretMetadata *ResourceMeta `json:"ephemeralRunnerConfigSecretMetadata,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum:=0
	MaxRunners *int `json:"maxRunners,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum:=0
	MinRunners *int `json:"minRunners,omitempty"`
}

// TLSConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type TLSConfig struct {
	CertificateFrom *TLSCertificateSource `json:"certificateFrom,omitempty"`
}

// TLSCertificateSource mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type TLSCertificateSource struct {
	ConfigMapKeyRef *corev1.ConfigMapKeySelector `json:"configMapKeyRef,omitempty"`
}

// ProxyConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type ProxyConfig struct {
	// +optional
	HTTP *ProxyServerConfig `json:"http,omitempty"`
	// +optional
	HTTPS *ProxyServerConfig `json:"https,omitempty"`
	// +optional
	NoProxy []string `json:"noProxy,omitempty"`
}

// ProxyServerConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type ProxyServerConfig struct {
	Url string `json:"url,omitempty"`
	// +optional
	CredentialSecretRef string `json:"credentialSecretRef,omitempty"`
}

// VaultConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type VaultConfig struct {
	// +optional
	Type vault.VaultType `json:"type,omitempty"`
	// +optional
	AzureKeyVault *AzureKeyVaultConfig `json:"azureKeyVault,omitempty"`
	// +optional
	Proxy *ProxyConfig `json:"proxy,omitempty"`
}

// AzureKeyVaultConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
// All four fields are required in the schema although Go omits them when empty.
type AzureKeyVaultConfig struct {
	// +required
	URL string `json:"url,omitempty"`
	// +required
	TenantID string `json:"tenantId,omitempty"`
	// +required
	ClientID string `json:"clientId,omitempty"`
	// +required
	CertificatePath string `json:"certificatePath,omitempty"`
}

// MetricsConfig mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type MetricsConfig struct {
	// +optional
	Counters map[string]*CounterMetric `json:"counters,omitempty"`
	// +optional
	Gauges map[string]*GaugeMetric `json:"gauges,omitempty"`
	// +optional
	Histograms map[string]*HistogramMetric `json:"histograms,omitempty"`
}

// CounterMetric mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type CounterMetric struct {
	Labels []string `json:"labels"`
}

// GaugeMetric mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type GaugeMetric struct {
	Labels []string `json:"labels"`
}

// HistogramMetric mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
// Buckets are float64, which controller-gen accepts only with
// crd:allowDangerousTypes=true (ARC's Makefile sets it).
type HistogramMetric struct {
	Labels  []string  `json:"labels"`
	Buckets []float64 `json:"buckets,omitempty"`
}

// AutoscalingRunnerSetStatus mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
// Go always writes every field (no omitempty); the schema requires none.
type AutoscalingRunnerSetStatus struct {
	// +optional
	CurrentRunners int `json:"currentRunners"`
	// +optional
	Phase AutoscalingRunnerSetPhase `json:"phase"`
	// +optional
	PendingEphemeralRunners int `json:"pendingEphemeralRunners"`
	// +optional
	RunningEphemeralRunners int `json:"runningEphemeralRunners"`
	// +optional
	FailedEphemeralRunners int `json:"failedEphemeralRunners"`
}

// AutoscalingRunnerSetPhase mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
type AutoscalingRunnerSetPhase string

// VaultConfig mirrors (*AutoscalingRunnerSet).VaultConfig in ARC
// apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
func (ars *AutoscalingRunnerSet) VaultConfig() *VaultConfig {
	return ars.Spec.VaultConfig
}

// AutoscalingRunnerSetList mirrors ARC apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go.
//
// +kubebuilder:object:root=true
type AutoscalingRunnerSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AutoscalingRunnerSet `json:"items"`
}
