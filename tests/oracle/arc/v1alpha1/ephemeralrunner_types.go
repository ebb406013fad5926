package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// EphemeralRunnerSpec mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunner_types.go.
type EphemeralRunnerSpec struct {
	GitHubConfigURL                     string        `json:"githubConfigUrl,omitempty"`
	GitHubConfigSecret                  string        `json:"githubConfigSecret,omitempty"`
	GitHubServerTLS                     *TLSConfig    `json:"githubServerTLS,omitempty"`
	RunnerScaleSetID                    int           `json:"runnerScaleSetId,omitempty"`
	Proxy                               *ProxyConfig  `json:"proxy,omitempty"`
	ProxySecretRef                      string        `json:"proxySecretRef,omitempty"`
	VaultConfig                         *VaultConfig  `json:"vaultConfig,omitempty"`
	EphemeralRunnerConfigSecretMetadata *ResourceMeta `json:"ephemeralRunnerConfigSecretMetadata,omitempty"`

	corev1.PodTemplateSpec `json:",inline"`
}
