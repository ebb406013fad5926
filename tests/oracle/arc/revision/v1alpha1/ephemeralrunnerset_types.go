// Package v1alpha1 declares the revision era of ARC's EphemeralRunnerSet (ARC
// PR #4638): the integrity-hash era's declarations of
// kubectl-arc/oracle/arc/v1alpha1, embedded inline, plus
// spec.actionableRevision and status.appliedActionableRevision.
//
// How the test bed gets both eras of ARC's CRDs (scripts/testbed.sh,
// gen_crds): controller-gen generates the legacy era's four CRDs from
// ../../v1alpha1, and the revision era's EphemeralRunnerSet CRD from this
// package; the revision era is the legacy era with that one CRD replaced
// (the other three kinds are the same in both eras). Both eras are thus
// generated from Go declarations with markers, and the two fields are
// declared once, here.
//
// They are not added to ../../v1alpha1 because the Go oracle decodes
// EphemeralRunnerSets into those types as ARC's controller at 2ee6b3b8 does:
// that controller ignores both fields, and so must the oracle. Nothing but
// the CRD generation reads this package.
//
// +groupName=actions.github.com
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	legacy "kubectl-arc/oracle/arc/v1alpha1"
)

// EphemeralRunnerSetSpec is the revision era's spec of an EphemeralRunnerSet.
type EphemeralRunnerSetSpec struct {
	legacy.EphemeralRunnerSetSpec `json:",inline"`

	// ActionableRevision is the runner-spec revision the writer asks for: the
	// AutoscalingRunnerSet controller bumps it when it patches a runner spec
	// that differs under Semantic equality.
	// +optional
	ActionableRevision int64 `json:"actionableRevision,omitempty"`
}

// EphemeralRunnerSetStatus is the revision era's status of an EphemeralRunnerSet.
type EphemeralRunnerSetStatus struct {
	legacy.EphemeralRunnerSetStatus `json:",inline"`

	// AppliedActionableRevision is the revision whose cleanup of idle and
	// pending runners the EphemeralRunnerSet controller has completed.
	// +optional
	AppliedActionableRevision int64 `json:"appliedActionableRevision,omitempty"`
}

// EphemeralRunnerSet is the revision era's EphemeralRunnerSet. Its markers are
// those of legacy.EphemeralRunnerSet.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=".spec.replicas",name="DesiredReplicas",type="integer"
// +kubebuilder:printcolumn:JSONPath=".status.currentReplicas", name="CurrentReplicas",type="integer"
// +kubebuilder:printcolumn:JSONPath=".status.pendingEphemeralRunners",name=Pending Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.runningEphemeralRunners",name=Running Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.finishedEphemeralRunners",name=Finished Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.deletingEphemeralRunners",name=Deleting Runners,type=integer
// +kubebuilder:printcolumn:JSONPath=".status.phase",name=Phase,type=string
type EphemeralRunnerSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EphemeralRunnerSetSpec   `json:"spec,omitempty"`
	Status EphemeralRunnerSetStatus `json:"status,omitempty"`
}

// EphemeralRunnerSetList is a list of revision-era EphemeralRunnerSets.
//
// +kubebuilder:object:root=true
type EphemeralRunnerSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EphemeralRunnerSet `json:"items"`
}
