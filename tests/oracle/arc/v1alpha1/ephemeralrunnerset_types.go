package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EphemeralRunnerSetSpec mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go
// at 2ee6b3b8, the integrity-hash era. The revision era's
// spec.actionableRevision is declared in ../revision/v1alpha1, not here: the
// oracle decodes EphemeralRunnerSets as that controller does, which ignores
// the field.
type EphemeralRunnerSetSpec struct {
	// Replicas is the number of EphemeralRunners the set should have.
	Replicas int `json:"replicas,omitempty"`
	// PatchID identifies the listener's latest patch of replicas.
	PatchID int `json:"patchID"`
	// EphemeralRunnerSpec is the spec each EphemeralRunner of the set gets.
	EphemeralRunnerSpec EphemeralRunnerSpec `json:"ephemeralRunnerSpec,omitempty"`
	// EphemeralRunnerMetadata is applied to EphemeralRunners created from now on.
	// +optional
	EphemeralRunnerMetadata *ResourceMeta `json:"ephemeralRunnerMetadata,omitempty"`
}

// EphemeralRunnerSetStatus mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go
// at 2ee6b3b8 (status.appliedActionableRevision: see ../revision/v1alpha1).
type EphemeralRunnerSetStatus struct {
	// CurrentReplicas is the number of EphemeralRunners the set has.
	CurrentReplicas int `json:"currentReplicas"`
	// +optional
	PendingEphemeralRunners int `json:"pendingEphemeralRunners"`
	// +optional
	RunningEphemeralRunners int `json:"runningEphemeralRunners"`
	// +optional
	FailedEphemeralRunners int `json:"failedEphemeralRunners"`
	// +optional
	Phase EphemeralRunnerSetPhase `json:"phase"`
}

// EphemeralRunnerSetPhase mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go.
type EphemeralRunnerSetPhase string

// EphemeralRunnerSet mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go.
// The printer columns are also declared, identically, on the revision era's
// EphemeralRunnerSet (../revision/v1alpha1); the test suite checks that the
// two generated CRDs differ only by the two revision fields.
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

// EphemeralRunnerSetList mirrors ARC apis/actions.github.com/v1alpha1/ephemeralrunnerset_types.go.
//
// +kubebuilder:object:root=true
type EphemeralRunnerSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EphemeralRunnerSet `json:"items"`
}
