package actionsgithubcom

import (
	"strconv"

	"kubectl-arc/oracle/arc/v1alpha1"
)

// scaleSetIDAnnotation is the AutoscalingRunnerSet annotation ARC reads the runner scale set ID
// from (runnerScaleSetIDAnnotationKey in ARC's controller package).
const scaleSetIDAnnotation = "runner-scale-set-id"

// The AutoscalingRunnerSet annotations ARC copies onto its EphemeralRunnerSet
// (AnnotationKeyGitHubRunnerGroupName and AnnotationKeyGitHubRunnerScaleSetName).
const (
	runnerGroupNameAnnotation    = "actions.github.com/runner-group-name"
	runnerScaleSetNameAnnotation = "actions.github.com/runner-scale-set-name"
)

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
// embedded, and replicas start at 0. ARC's two other failures come next, in ARC's order: a
// githubConfigUrl its applyGitHubURLLabels cannot parse is an error, and set metadata without
// annotations panics in mergeAnnotations (the panic is not recovered here). Labels, annotations
// and the owner reference are not kept: none of them enter the runner spec.
func NewEphemeralRunnerSetSpec(ars *v1alpha1.AutoscalingRunnerSet) (v1alpha1.EphemeralRunnerSetSpec, error) {
	id, err := strconv.Atoi(ars.Annotations[scaleSetIDAnnotation])
	if err != nil {
		return v1alpha1.EphemeralRunnerSetSpec{}, err
	}
	if err := gitHubURLLabelsError(ars.Spec.GitHubConfigUrl); err != nil {
		return v1alpha1.EphemeralRunnerSetSpec{}, err
	}
	// ARC's set annotations always hold the runner group and scale set name keys (their values
	// may be empty), so a metadata block without annotations merges into a nil map and panics.
	if meta := ars.Spec.EphemeralRunnerSetMetadata; meta != nil {
		mergeAnnotations(meta.Annotations, map[string]string{
			runnerGroupNameAnnotation:    ars.Annotations[runnerGroupNameAnnotation],
			runnerScaleSetNameAnnotation: ars.Annotations[runnerScaleSetNameAnnotation],
		})
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
