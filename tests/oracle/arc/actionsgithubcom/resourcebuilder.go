package actionsgithubcom

import (
	"strconv"

	"kubectl-arc/oracle/arc/v1alpha1"
)

// scaleSetIDAnnotation is the AutoscalingRunnerSet annotation ARC reads the runner scale set ID
// from (runnerScaleSetIDAnnotationKey in ARC's controller package).
const scaleSetIDAnnotation = "runner-scale-set-id"

// integrityWrapper returns the value ARC's ephemeralRunnerSetIntegrityHash
// (controllers/actions.github.com/resourcebuilder.go) hands to the hash: a pointer to a struct
// type declared inside a function of this package, named data, whose one field holds the spec.
// go-spew prints its type as (*actionsgithubcom.data).
func integrityWrapper(spec v1alpha1.EphemeralRunnerSpec) interface{} {
	type data struct {
		EphemeralRunnerSpec v1alpha1.EphemeralRunnerSpec `json:"ephemeralRunnerSpec"`
	}
	return &data{EphemeralRunnerSpec: spec}
}

// EphemeralRunnerSetIntegrityHash is the legacy actions.github.com/integrity-hash ARC computes
// for an EphemeralRunnerSet.
func EphemeralRunnerSetIntegrityHash(ers *v1alpha1.EphemeralRunnerSet) string {
	return ComputeTemplateHash(integrityWrapper(ers.Spec.EphemeralRunnerSpec))
}

// EphemeralRunnerSetIntegritySpew is the text EphemeralRunnerSetIntegrityHash hashes.
func EphemeralRunnerSetIntegritySpew(ers *v1alpha1.EphemeralRunnerSet) string {
	return TemplateSpew(integrityWrapper(ers.Spec.EphemeralRunnerSpec))
}

// NewEphemeralRunnerSetSpec builds the desired EphemeralRunnerSetSpec the way the spec part of
// ARC's newEphemeralRunnerSet (resourcebuilder.go) does, in memory from the decoded
// AutoscalingRunnerSet: the scale set ID is strconv.Atoi of the annotation (an error stops ARC),
// the GitHub settings, proxy, TLS, vault and secret metadata are copied, the pod template is
// embedded, and replicas start at 0. Labels, annotations, GitHub URL labels and the owner
// reference are not built here: none of them enter the runner spec.
func NewEphemeralRunnerSetSpec(ars *v1alpha1.AutoscalingRunnerSet) (v1alpha1.EphemeralRunnerSetSpec, error) {
	id, err := strconv.Atoi(ars.Annotations[scaleSetIDAnnotation])
	if err != nil {
		return v1alpha1.EphemeralRunnerSetSpec{}, err
	}
	var runner v1alpha1.EphemeralRunnerSpec
	runner.RunnerScaleSetID = id
	runner.GitHubConfigURL = ars.Spec.GitHubConfigUrl
	runner.GitHubConfigSecret = ars.Spec.GitHubConfigSecret
	runner.Proxy = ars.Spec.Proxy
	runner.GitHubServerTLS = ars.Spec.GitHubServerTLS
	runner.PodTemplateSpec = ars.Spec.Template
	runner.VaultConfig = ars.VaultConfig()
	runner.EphemeralRunnerConfigSecretMetadata = ars.Spec.EphemeralRunnerConfigSecretMetadata
	return v1alpha1.EphemeralRunnerSetSpec{
		EphemeralRunnerSpec:     runner,
		EphemeralRunnerMetadata: ars.Spec.EphemeralRunnerMetadata,
	}, nil
}
