// Package k8s checks the Kubernetes manifests of docs/fleet.md against the
// API's own Go types (k8s.io/api, k8s.io/kubelet): each YAML block is
// decoded strictly, as the API server decodes it (sigs.k8s.io/json: field
// names case-sensitive, no unknown or repeated field), so that a misspelt
// field, or a value of the wrong type, fails; then what the page says of them is checked: a
// Guaranteed pod of whole CPUs per node, the kubelet's static CPU manager,
// the results volume shared by the job and the merge. It is a module of
// its own so that corepin's go.mod and build do not carry the Kubernetes
// API: cd test/fleet/k8s && go test ./...
package k8s

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// manifests are the YAML blocks of docs/fleet.md's Kubernetes section.
func manifests(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## A Kubernetes cluster")
	if !ok {
		t.Fatal("docs/fleet.md has no \"## A Kubernetes cluster\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "\n```yaml\n")
		if !ok {
			return blocks
		}
		block, after, ok := strings.Cut(rest, "\n```")
		if !ok {
			t.Fatal("an unclosed yaml block")
		}
		blocks = append(blocks, block+"\n")
		section = after
	}
}

// decoded are the manifests as the API's types.
type decoded struct {
	kubelet *kubeletv1beta1.KubeletConfiguration
	job     *batchv1.Job
	pod     *corev1.Pod
}

// decode reads each manifest into the type its apiVersion and kind name,
// strictly.
func decode(blocks []string) (decoded, []error) {
	var d decoded
	var errs []error
	for _, b := range blocks {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(b), &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "kubelet.config.k8s.io/v1beta1 KubeletConfiguration":
			d.kubelet = new(kubeletv1beta1.KubeletConfiguration)
			obj = d.kubelet
		case "batch/v1 Job":
			d.job = new(batchv1.Job)
			obj = d.job
		case "v1 Pod":
			d.pod = new(corev1.Pod)
			obj = d.pod
		default:
			errs = append(errs, &unknownKind{meta})
			continue
		}
		// As the API server reads a manifest: YAML as JSON, field names
		// case-sensitive, no unknown or repeated field.
		data, err := yaml.YAMLToJSON([]byte(b))
		if err != nil {
			errs = append(errs, &badManifest{meta, err})
			continue
		}
		strict, err := kjson.UnmarshalStrict(data, obj)
		if err != nil {
			strict = append(strict, err)
		}
		for _, err := range strict {
			errs = append(errs, &badManifest{meta, err})
		}
	}
	return d, errs
}

type unknownKind struct{ meta metav1.TypeMeta }

func (e *unknownKind) Error() string {
	return "a manifest of apiVersion " + e.meta.APIVersion + ", kind " + e.meta.Kind + ": not one the page should hold"
}

type badManifest struct {
	meta metav1.TypeMeta
	err  error
}

func (e *badManifest) Error() string { return e.meta.Kind + ": " + e.err.Error() }

func TestManifestsDecodeStrictly(t *testing.T) {
	blocks := manifests(t)
	if len(blocks) != 3 {
		t.Fatalf("%d yaml blocks, want the kubelet's configuration, the job and the merge pod", len(blocks))
	}
	d, errs := decode(blocks)
	for _, err := range errs {
		t.Error(err)
	}
	if d.kubelet == nil || d.job == nil || d.pod == nil {
		t.Fatalf("kubelet %v, job %v, pod %v", d.kubelet != nil, d.job != nil, d.pod != nil)
	}

	// The kubelet gives Guaranteed pods whole physical cores.
	k := d.kubelet
	if k.CPUManagerPolicy != "static" || k.CPUManagerPolicyOptions["full-pcpus-only"] != "true" || k.ReservedSystemCPUs == "" {
		t.Errorf("kubelet: policy %q, options %v, reserved %q", k.CPUManagerPolicy, k.CPUManagerPolicyOptions, k.ReservedSystemCPUs)
	}

	// The job: one pod per node, each Guaranteed with whole CPUs.
	j := d.job.Spec
	if j.CompletionMode == nil || *j.CompletionMode != batchv1.IndexedCompletion || j.Completions == nil || j.Parallelism == nil || *j.Completions != *j.Parallelism {
		t.Errorf("job: completion mode %v, completions %v, parallelism %v", j.CompletionMode, j.Completions, j.Parallelism)
	}
	spec := j.Template.Spec
	if spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("job pods restart %q", spec.RestartPolicy)
	}
	anti := spec.Affinity
	if anti == nil || anti.PodAntiAffinity == nil || len(anti.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatal("job: no required pod anti-affinity: two pods could share a node")
	}
	term := anti.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != "kubernetes.io/hostname" || term.LabelSelector == nil || term.LabelSelector.MatchLabels["app"] != j.Template.Labels["app"] {
		t.Errorf("job: anti-affinity %+v against the pods' labels %v", term, j.Template.Labels)
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("job: %d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
		if req.IsZero() || req.Cmp(lim) != 0 {
			t.Errorf("job: %s requests %s, limits %s: a Guaranteed pod has them equal", r, req.String(), lim.String())
		}
	}
	if cpu := c.Resources.Requests[corev1.ResourceCPU]; cpu.MilliValue()%1000 != 0 {
		t.Errorf("job: %s CPUs: the static CPU manager gives whole CPUs only to an integer request", cpu.String())
	}
	if sc := c.SecurityContext; sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Add, "SYS_NICE") {
		t.Errorf("job: no SYS_NICE: %+v", sc)
	}
	// corepin writes to /results/$(NODE_NAME), the node's name from the
	// downward API, on the shared volume.
	out := strings.Join(c.Args, " ")
	if !strings.Contains(out, "--out /results/$(NODE_NAME)") || c.Command[0] != "/corepin" {
		t.Errorf("job: command %q, args %q", c.Command, c.Args)
	}
	if i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "NODE_NAME" }); i < 0 ||
		c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.FieldRef == nil || c.Env[i].ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("job: NODE_NAME is not the node's name: %+v", c.Env)
	}
	jobClaim := mountedClaim(t, "job", spec, c, "/results")

	// The merge pod reads the same volume.
	p := d.pod.Spec
	if len(p.Containers) != 1 || !strings.Contains(strings.Join(p.Containers[0].Command, " "), "/corepin merge /results/*/*/") {
		t.Fatalf("merge pod: containers %+v", p.Containers)
	}
	if claim := mountedClaim(t, "merge pod", p, p.Containers[0], "/results"); claim != jobClaim {
		t.Errorf("the merge pod reads claim %q, the job writes %q", claim, jobClaim)
	}
}

// mountedClaim is the persistent volume claim mounted at path in the
// container, checking that the mount names a volume of the pod.
func mountedClaim(t *testing.T, what string, spec corev1.PodSpec, c corev1.Container, path string) string {
	t.Helper()
	i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == path })
	if i < 0 {
		t.Errorf("%s: nothing mounted at %s", what, path)
		return ""
	}
	name := c.VolumeMounts[i].Name
	j := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == name })
	if j < 0 || spec.Volumes[j].PersistentVolumeClaim == nil {
		t.Errorf("%s: the mount %q names no persistent volume claim of the pod", what, name)
		return ""
	}
	return spec.Volumes[j].PersistentVolumeClaim.ClaimName
}

// The decoding is strict: a misspelt field, a field in the wrong place and
// a value of the wrong type are refused.
func TestStrictDecodingRefuses(t *testing.T) {
	blocks := manifests(t)
	for _, tt := range []struct{ old, new string }{
		{"parallelism: 4", "parallelizm: 4"},
		{"cpuManagerPolicy: static", "cpuManagerPolicyy: static"},
		{"topologyKey: kubernetes.io/hostname", "topologykey: kubernetes.io/hostname"},
		{"restartPolicy: Never\n      affinity:", "restartPolicy: Never\n      afinity:"},
		{`cpu: "2"`, "cpu: [2]"},
		{"claimName: corepin-results   # ReadWriteMany", "claimName: {name: corepin-results}"},
	} {
		var changed []string
		found := false
		for _, b := range blocks {
			if strings.Contains(b, tt.old) {
				b, found = strings.Replace(b, tt.old, tt.new, 1), true
			}
			changed = append(changed, b)
		}
		if !found {
			t.Errorf("the page no longer has %q", tt.old)
			continue
		}
		if _, errs := decode(changed); len(errs) == 0 {
			t.Errorf("%q in place of %q decoded without an error", tt.new, tt.old)
		}
	}
}
