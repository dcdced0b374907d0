// The oracle: upstream kube-scheduler's own framework (k8s.io/kubernetes v1.37.2, the in-tree
// registry, the default profile with 1.37's feature gates) run on the same objects Podplan reads.
// It prints, per scheduling cycle, every node's Filter verdict, every plugin's raw and normalized
// score per node, the top-scoring nodes, preemption's victims and nominated node, and the FitError
// message upstream builds. test/upstream/fidelity compares Podplan with it.
//
// Input: JSON lines on stdin (or -in FILE), one case per line:
//
//	{"id": "...", "objects": [<Kubernetes objects as the API would hold them>],
//	 "trace": [{"pod": "ns/name", "node": "n1"} | {"pod": "ns/name", "nominated": "n1", "victims": ["ns/v"]} | {"pod": "ns/name"}]}
//
// The trace is what Podplan did, cycle by cycle: the oracle runs the same pod in the same order and
// then applies Podplan's decision (assume on its node; evict its victims and nominate), so both
// continue from the same state even where upstream would break a tie differently. Without a trace
// the oracle runs its own queue (priority, then input order) and breaks ties by node name.
//
// With -snapshot DIR it reads the YAML files of a snapshot folder (as `podplan schedule DIR` does)
// and prints one case's result.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	// The API server's defaulting of resource.k8s.io objects (allocationMode ExactCount, count 1, …).
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	"k8s.io/kubernetes/pkg/features"
	noderegistry "k8s.io/kubernetes/pkg/registry/core/node"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
)

type traceStep struct {
	Pod       string   `json:"pod"`
	Node      string   `json:"node,omitempty"`
	Nominated string   `json:"nominated,omitempty"`
	Victims   []string `json:"victims,omitempty"`
}

type inputCase struct {
	ID      string            `json:"id"`
	Objects []json.RawMessage `json:"objects"`
	// A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the defaults when left out.
	Config json.RawMessage `json:"config,omitempty"`
	Trace  []traceStep     `json:"trace,omitempty"`
}

type verdict struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
}

type pluginScore struct {
	Raw        int64 `json:"raw"`
	Normalized int64 `json:"normalized"`
}

type cycleResult struct {
	Pod string `json:"pod"`
	// Set when PreFilter rejected the pod (its status), or failed.
	PreFilter *verdict `json:"preFilter,omitempty"`
	// Every node's Filter verdict, with the nominated pods counted ("Success" for nodes that pass).
	Filter map[string]verdict `json:"filter,omitempty"`
	// The nodes the cycle found feasible, in the order the search met them (sampling included).
	Feasible []string `json:"feasible"`
	// Per node (among the feasible), per score plugin.
	Scores map[string]map[string]pluginScore `json:"scores,omitempty"`
	Totals map[string]int64                  `json:"totals,omitempty"`
	// The nodes sharing the best total (upstream picks one of them at random).
	Top []string `json:"top,omitempty"`
	// The nominated node passed Filter and was taken without scoring.
	NominatedFit bool `json:"nominatedFit,omitempty"`
	// The FitError message when the pod could not be placed.
	Message   string   `json:"message,omitempty"`
	Nominated string   `json:"nominated,omitempty"`
	Victims   []string `json:"victims,omitempty"`
	// Podplan's decision for this cycle, as applied (trace mode).
	Applied string `json:"applied,omitempty"`
	Error   string `json:"error,omitempty"`
	// PostFilter asked to clear the pod's nomination (handleSchedulingFailure's ModeOverride with no node).
	clearNomination bool
}

type caseResult struct {
	ID     string        `json:"id"`
	Cycles []cycleResult `json:"cycles"`
	// Objects the API server would refuse (validation), with why.
	Invalid []string `json:"invalid,omitempty"`
	Error   string   `json:"error,omitempty"`
}

func main() {
	in := flag.String("in", "-", "JSON-lines file of cases ('-' for stdin)")
	snapshot := flag.String("snapshot", "", "a folder of YAML snapshot files: schedule its pending pods (no trace)")
	printProfile := flag.Bool("profile", false, "print the default profile's plugins per extension point, as the framework built it")
	celCost := flag.Bool("celcost", false, "read JSON lines {\"expression\": ...}: DRA selectors' estimated CEL cost and kube-apiserver's validation errors (celcost.go)")
	celRuntime := flag.Bool("celruntime", false, "read JSON lines {\"expression\": ..., \"driver\": ..., \"device\": ...}: a DRA selector evaluated on the device as the allocator does, its actual CEL cost and error (celruntime.go)")
	flag.Parse()
	// klog would write the framework's own errors on stderr; keep them out of the way.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	// Victims are deleted within the PostFilter call, so the oracle reads them when it returns.
	if err := feature.DefaultMutableFeatureGate.Set(string(features.SchedulerAsyncPreemption) + "=false"); err != nil {
		fmt.Fprintln(os.Stderr, "feature gate:", err)
		os.Exit(2)
	}
	metrics.Register()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	if *celCost {
		celCostMain(*in, enc)
		return
	}
	if *celRuntime {
		celRuntimeMain(*in, enc)
		return
	}
	if *printProfile {
		cl, _, err := newCluster(inputCase{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		_ = enc.Encode(cl.framework.ListPlugins())
		return
	}
	if *snapshot != "" {
		objects, err := readSnapshot(*snapshot)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		_ = enc.Encode(runCase(inputCase{ID: *snapshot, Objects: objects}))
		return
	}
	var reader io.Reader = os.Stdin
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		reader = f
	}
	scanner := bufio.NewScanner(reader)
	scanner.Buffer(make([]byte, 1<<20), 1<<30)
	for scanner.Scan() {
		line := bytes.TrimSpace(scanner.Bytes())
		if len(line) == 0 {
			continue
		}
		var c inputCase
		if err := json.Unmarshal(line, &c); err != nil {
			_ = enc.Encode(caseResult{Error: "bad case: " + err.Error()})
			continue
		}
		_ = enc.Encode(runCase(c))
		out.Flush()
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// readSnapshot reads every .yaml/.yml/.json file of a folder (Lists unrolled) as JSON objects.
func readSnapshot(dir string) ([]json.RawMessage, error) {
	var objects []json.RawMessage
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var raw map[string]any
			if err := decoder.Decode(&raw); err != nil {
				if err == io.EOF {
					break
				}
				return nil, fmt.Errorf("%s: %w", e.Name(), err)
			}
			if raw == nil {
				continue
			}
			items := []map[string]any{raw}
			if list, ok := raw["items"].([]any); ok && strings.HasSuffix(fmt.Sprint(raw["kind"]), "List") {
				items = nil
				for _, item := range list {
					if m, ok := item.(map[string]any); ok {
						items = append(items, m)
					}
				}
			}
			for _, item := range items {
				b, _ := json.Marshal(item)
				objects = append(objects, b)
			}
		}
	}
	return objects, nil
}

// cluster is one case's upstream machinery: a fake API (for the plugins' listers and preemption's
// deletions), the scheduler cache and its snapshot, the nominator, and the framework.
type cluster struct {
	ctx        context.Context
	logger     klog.Logger
	client     *fake.Clientset
	cache      internalcache.Cache
	snapshot   *internalcache.Snapshot
	queue      internalqueue.SchedulingQueue
	framework  framework.Framework
	weights    map[string]int32
	pods       map[string]*v1.Pod
	podOrder   []string
	deleted    []string
	deletedMu  sync.Mutex
	nextStart  int
	percentage int32
	// The case has DeviceClasses: a pod's extended resources may be served by DRA.
	deviceClasses bool
}

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

func decodeObjects(raws []json.RawMessage) ([]runtime.Object, []string) {
	decoder := clientscheme.Codecs.UniversalDeserializer()
	var objects []runtime.Object
	var problems []string
	for i, raw := range raws {
		obj, _, err := decoder.Decode(raw, nil, nil)
		if runtime.IsNotRegisteredError(err) {
			continue // a kind the scheduler does not read (Podplan's own, workloads' CRDs)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("object %d: %v", i, err))
			continue
		}
		// What the API server's defaulting does on the way in.
		legacyscheme.Scheme.Default(obj)
		if problem := admit(obj); problem != "" {
			problems = append(problems, fmt.Sprintf("object %d: %s", i, problem))
		}
		objects = append(objects, obj)
	}
	return objects, problems
}

// admit runs what the API server does to a created pod (the pod strategy's PrepareForCreate: pod
// affinity's matchLabelKeys merged into the selector, pod-level resource defaults, …) and its
// validation, and validates nodes; the status written in the snapshot is kept (a cluster's kubelet
// and scheduler set it after creation). Returns why the API server would refuse the object.
func admit(obj runtime.Object) string {
	ctx := context.Background()
	switch o := obj.(type) {
	case *v1.Pod:
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		internal := &api.Pod{}
		if err := legacyscheme.Scheme.Convert(o, internal, nil); err != nil {
			return err.Error()
		}
		status := internal.Status
		podregistry.Strategy.PrepareForCreate(ctx, internal)
		errs := podregistry.Strategy.Validate(ctx, internal)
		internal.Status = status
		if err := legacyscheme.Scheme.Convert(internal, o, nil); err != nil {
			return err.Error()
		}
		if len(errs) > 0 {
			return fmt.Sprintf("pod %s/%s: %v", o.Namespace, o.Name, errs.ToAggregate())
		}
	case *v1.Node:
		internal := &api.Node{}
		if err := legacyscheme.Scheme.Convert(o, internal, nil); err != nil {
			return err.Error()
		}
		if errs := noderegistry.Strategy.Validate(ctx, internal); len(errs) > 0 {
			return fmt.Sprintf("node %s: %v", o.Name, errs.ToAggregate())
		}
	}
	return ""
}

// admitPriority sets spec.priority as the Priority admission plugin does (when it is not set).
func admitPriority(pods []*v1.Pod, classes []*schedulingv1.PriorityClass) {
	var globalDefault *schedulingv1.PriorityClass
	byName := map[string]*schedulingv1.PriorityClass{}
	for _, c := range classes {
		byName[c.Name] = c
		if c.GlobalDefault && (globalDefault == nil || c.Value < globalDefault.Value) {
			globalDefault = c
		}
	}
	system := map[string]int32{"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}
	for _, p := range pods {
		if p.Spec.Priority != nil {
			continue
		}
		var value int32
		policy := v1.PreemptLowerPriority
		if c, ok := byName[p.Spec.PriorityClassName]; ok {
			value = c.Value
			if c.PreemptionPolicy != nil {
				policy = *c.PreemptionPolicy
			}
		} else if v, ok := system[p.Spec.PriorityClassName]; ok {
			value = v
		} else if p.Spec.PriorityClassName == "" && globalDefault != nil {
			value = globalDefault.Value
			if globalDefault.PreemptionPolicy != nil {
				policy = *globalDefault.PreemptionPolicy
			}
		}
		p.Spec.Priority = &value
		if p.Spec.PreemptionPolicy == nil {
			p.Spec.PreemptionPolicy = &policy
		}
	}
}

func newCluster(c inputCase) (*cluster, []string, error) {
	objects, invalid := decodeObjects(c.Objects)
	ctx := context.Background()
	logger := klog.Background()
	cl := &cluster{ctx: ctx, logger: logger, pods: map[string]*v1.Pod{}}

	var nodes []*v1.Node
	var pods []*v1.Pod
	var classes []*schedulingv1.PriorityClass
	var others []runtime.Object
	for _, obj := range objects {
		switch o := obj.(type) {
		case *v1.Node:
			nodes = append(nodes, o)
		case *v1.Pod:
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			if o.UID == "" {
				o.UID = types.UID("uid-" + o.Namespace + "-" + o.Name)
			}
			pods = append(pods, o)
		case *schedulingv1.PriorityClass:
			classes = append(classes, o)
			others = append(others, o)
		case *v1.PersistentVolumeClaim:
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			others = append(others, o)
		case *policyv1.PodDisruptionBudget:
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			others = append(others, o)
		case *appsv1.StatefulSet, *appsv1.ReplicaSet, *v1.Service, *v1.ReplicationController:
			// PodTopologySpread's default constraints take their selector from these.
			if m, ok := obj.(metav1.Object); ok && m.GetNamespace() == "" {
				m.SetNamespace("default")
			}
			others = append(others, o)
		case *resourcev1.DeviceClass:
			cl.deviceClasses = true
			others = append(others, o)
		case *resourcev1.ResourceClaim, *resourcev1.ResourceClaimTemplate:
			if m, ok := obj.(metav1.Object); ok && m.GetNamespace() == "" {
				m.SetNamespace("default")
			}
			others = append(others, o)
		case *v1.PersistentVolume, *storagev1.StorageClass, *storagev1.CSINode, *storagev1.CSIDriver,
			*storagev1.CSIStorageCapacity, *v1.Namespace, *resourcev1.ResourceSlice, *resourcev1.DeviceTaintRule:
			others = append(others, o)
		default:
			// Kinds the scheduler does not read (workloads, ConfigMaps, Podplan's own).
		}
	}
	admitPriority(pods, classes)

	all := append([]runtime.Object{}, others...)
	for _, n := range nodes {
		all = append(all, n)
	}
	for _, p := range pods {
		all = append(all, p)
	}
	// The fake API keeps objects without resourceVersions; the scheduler's assume cache orders a
	// claim's versions by it (PreBind's update must replace the claim the informer listed), so
	// claims get one, bumped on every write.
	claimVersion := int64(1)
	for _, o := range all {
		if c, ok := o.(*resourcev1.ResourceClaim); ok && c.ResourceVersion == "" {
			c.ResourceVersion = "1"
		}
	}
	cl.client = fake.NewClientset(all...)
	bumpClaim := func(action k8stesting.Action) (bool, runtime.Object, error) {
		var obj runtime.Object
		switch a := action.(type) {
		case k8stesting.UpdateAction:
			obj = a.GetObject()
		case k8stesting.CreateAction:
			obj = a.GetObject()
		}
		if m, ok := obj.(metav1.Object); ok {
			claimVersion++
			m.SetResourceVersion(fmt.Sprint(claimVersion))
			// The fake API does not generate names (the claim PreBind makes for extended resources).
			if m.GetName() == "" && m.GetGenerateName() != "" {
				m.SetName(fmt.Sprintf("%s%05d", m.GetGenerateName(), claimVersion))
			}
		}
		return false, nil, nil
	}
	cl.client.PrependReactor("update", "resourceclaims", bumpClaim)
	cl.client.PrependReactor("create", "resourceclaims", bumpClaim)
	cl.client.PrependReactor("delete", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		d := action.(k8stesting.DeleteAction)
		cl.deletedMu.Lock()
		cl.deleted = append(cl.deleted, d.GetNamespace()+"/"+d.GetName())
		cl.deletedMu.Unlock()
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(cl.client, 0)

	cfg, err := schedulerConfig(c.Config)
	if err != nil {
		return nil, invalid, err
	}
	profile := cfg.Profiles[0]
	cl.percentage = 0
	if cfg.PercentageOfNodesToScore != nil {
		cl.percentage = *cfg.PercentageOfNodesToScore
	}

	resourceClaimInformer := factory.Resource().V1().ResourceClaims().Informer()
	claimCache := assumecache.NewAssumeCache(logger, resourceClaimInformer, "ResourceClaim", "", nil)
	tracker, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		EnableDeviceTaintRules:   feature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules),
		EnableConsumableCapacity: feature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		SliceInformer:            factory.Resource().V1().ResourceSlices(),
		TaintInformer:            factory.Resource().V1().DeviceTaintRules(),
		KubeClient:               cl.client,
	})
	if err != nil {
		return nil, invalid, fmt.Errorf("resource slice tracker: %w", err)
	}
	draManager := dynamicresources.NewDRAManager(ctx, claimCache, tracker, factory)
	// What the scheduler's event handlers do (addAllEventHandlers): DeviceClass events feed the
	// extended resource cache DRAExtendedResource resolves resource names with.
	if erCache, ok := draManager.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache); ok && erCache != nil {
		if _, err := factory.Resource().V1().DeviceClasses().Informer().AddEventHandler(erCache); err != nil {
			return nil, invalid, fmt.Errorf("device class handler: %w", err)
		}
	}
	csiManager := nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())

	cl.cache = internalcache.New(ctx, nil, feature.DefaultFeatureGate.Enabled(features.GenericWorkload), feature.DefaultFeatureGate.Enabled(features.CompositePodGroup))
	cl.snapshot = internalcache.NewEmptySnapshot()
	recorder := events.NewFakeRecorder(1 << 16)
	fw, err := frameworkruntime.NewFramework(ctx, frameworkplugins.NewInTreeRegistry(), &profile,
		frameworkruntime.WithClientSet(cl.client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSharedDRAManager(draManager),
		frameworkruntime.WithSharedCSIManager(csiManager),
		frameworkruntime.WithSnapshotSharedLister(cl.snapshot),
		frameworkruntime.WithMutableSnapshotLister(cl.snapshot),
		frameworkruntime.WithEventRecorder(recorder),
		frameworkruntime.WithParallelism(1),
		frameworkruntime.WithPodGroupManager(cl.cache),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithMetricsRecorder(metrics.NewMetricsAsyncRecorder(1000, time.Second, ctx.Done())),
	)
	if err != nil {
		return nil, invalid, fmt.Errorf("framework: %w", err)
	}
	cl.framework = fw
	cl.queue = internalqueue.NewSchedulingQueue(fw.QueueSortFunc(), factory)
	fw.SetPodNominator(cl.queue)
	fw.SetPodActivator(cl.queue)
	cl.weights = map[string]int32{}
	for _, p := range fw.ListPlugins().Score.Enabled {
		cl.weights[p.Name] = p.Weight
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	// The assume cache and the slice tracker fill from informer handlers: wait until they hold
	// what the fake API holds.
	waitForHandlers(cl, objects)

	for _, n := range nodes {
		cl.cache.AddNode(logger, n)
	}
	for _, p := range pods {
		cl.pods[podKey(p)] = p
		cl.podOrder = append(cl.podOrder, podKey(p))
		if p.Spec.NodeName != "" {
			if err := cl.cache.AddPod(logger, p); err != nil {
				invalid = append(invalid, fmt.Sprintf("pod %s: %v", podKey(p), err))
			}
		} else {
			// In the queue, as a scheduler holds its pending pods: the nominator reads a nominated
			// pod's spec (requests, priority) from there.
			cl.queue.Add(ctx, p)
			if p.Status.NominatedNodeName != "" {
				pi, _ := framework.NewPodInfo(p)
				cl.queue.AddNominatedPod(logger, pi, &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: p.Status.NominatedNodeName})
			}
		}
	}
	return cl, invalid, nil
}

func waitForHandlers(cl *cluster, objects []runtime.Object) {
	claims, slices := 0, 0
	// DeviceTaintRules (DRADeviceTaintRules): the tracker adds each rule's taint to the devices it
	// matches, after the slices are in; wait until the slices it lists carry them all.
	taints := 0
	var rules []*resourcev1.DeviceTaintRule
	var sliceObjects []*resourcev1.ResourceSlice
	// The extended resource names DeviceClasses serve (DRAExtendedResource): the resolver learns
	// them from informer events too.
	var extended []v1.ResourceName
	for _, o := range objects {
		switch c := o.(type) {
		case *resourcev1.ResourceClaim:
			claims++
		case *resourcev1.ResourceSlice:
			slices++
			sliceObjects = append(sliceObjects, c)
		case *resourcev1.DeviceTaintRule:
			rules = append(rules, c)
		case *resourcev1.DeviceClass:
			extended = append(extended, v1.ResourceName(resourcev1.ResourceDeviceClassPrefix+c.Name))
			if c.Spec.ExtendedResourceName != nil {
				extended = append(extended, v1.ResourceName(*c.Spec.ExtendedResourceName))
			}
		}
	}
	for _, sl := range sliceObjects {
		for _, d := range sl.Spec.Devices {
			taints += len(d.Taints)
			for _, r := range rules {
				sel := r.Spec.DeviceSelector
				if sel == nil || (sel.Driver != nil && *sel.Driver != sl.Spec.Driver) ||
					(sel.Pool != nil && *sel.Pool != sl.Spec.Pool.Name) || (sel.Device != nil && *sel.Device != d.Name) {
					continue
				}
				taints++
			}
		}
	}
	dra := cl.framework.SharedDRAManager()
	for i := 0; i < 2000; i++ {
		list, _ := dra.ResourceClaims().List()
		sliceList, _ := dra.ResourceSlices().ListWithDeviceTaintRules()
		known := true
		for _, name := range extended {
			if dra.DeviceClassResolver().GetDeviceClass(name) == nil {
				known = false
			}
		}
		listed := 0
		for _, sl := range sliceList {
			for _, d := range sl.Spec.Devices {
				listed += len(d.Taints)
			}
		}
		if len(list) >= claims && len(sliceList) >= slices && known && listed >= taints {
			return
		}
		waitABit()
	}
}

func schedulerConfig(raw json.RawMessage) (*schedulerapi.KubeSchedulerConfiguration, error) {
	cfg := &schedulerapi.KubeSchedulerConfiguration{}
	if len(raw) == 0 {
		var versioned configv1.KubeSchedulerConfiguration
		scheme.Scheme.Default(&versioned)
		if err := scheme.Scheme.Convert(&versioned, cfg, nil); err != nil {
			return nil, err
		}
		return cfg, nil
	}
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode(raw, nil, cfg)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return obj.(*schedulerapi.KubeSchedulerConfiguration), nil
}

func statusVerdict(s *fwk.Status) verdict {
	return verdict{Code: s.Code().String(), Plugin: s.Plugin(), Reasons: s.Reasons()}
}

// numFeasibleNodesToFind as upstream's scheduler (schedule_one.go).
func (cl *cluster) numFeasibleNodesToFind(profilePercentage *int32, numAllNodes int32) int32 {
	const minFeasibleNodesToFind, minFeasibleNodesPercentageToFind = 100, 5
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	percentage := cl.percentage
	if profilePercentage != nil {
		percentage = *profilePercentage
	}
	if percentage == 0 {
		percentage = int32(50) - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	numNodes := numAllNodes * percentage / 100
	if numNodes < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return numNodes
}

// cycle runs one scheduling cycle for the pod as upstream's schedulingAlgorithm does (with one
// worker, so the node search is the sequential one), recording what each step found.
func (cl *cluster) cycle(pod *v1.Pod) (cycleResult, fwk.CycleState) {
	res := cycleResult{Pod: podKey(pod), Feasible: []string{}}
	ctx := cl.ctx
	if err := cl.cache.UpdateSnapshot(cl.logger, cl.snapshot); err != nil {
		res.Error = err.Error()
		return res, nil
	}
	fw := cl.framework
	state := framework.NewCycleState()
	allNodes, _ := cl.snapshot.ListNodesInPlacement()
	if len(allNodes) == 0 {
		res.Message = "no nodes available to schedule pods"
		return res, state
	}
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	preRes, s, unschedulable := fw.RunPreFilterPlugins(ctx, state, pod)
	diagnosis.UnschedulablePlugins = unschedulable
	var feasible []fwk.NodeInfo
	if !s.IsSuccess() {
		v := statusVerdict(s)
		res.PreFilter = &v
		if !s.IsRejected() {
			res.Error = s.AsError().Error()
			return res, state
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(s)
		diagnosis.PreFilterMsg = s.Message()
		diagnosis.AddPluginStatus(s)
	} else {
		// Every node's verdict, for the comparison (Filter is pure given the cycle state).
		res.Filter = map[string]verdict{}
		for _, n := range allNodes {
			st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, n)
			if st.IsSuccess() {
				res.Filter[n.Node().Name] = verdict{Code: "Success"}
			} else {
				res.Filter[n.Node().Name] = statusVerdict(st)
			}
		}
		if pod.Status.NominatedNodeName != "" {
			if n, err := cl.snapshot.GetNodeInPlacement(pod.Status.NominatedNodeName); err == nil {
				if st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, n); st.IsSuccess() {
					res.NominatedFit = true
					res.Feasible = []string{n.Node().Name}
					res.Top = []string{n.Node().Name}
					return res, state
				}
			}
		}
		nodes := allNodes
		if !preRes.AllNodes() {
			nodes = nil
			for _, n := range allNodes {
				if preRes.NodeNames.Has(n.Node().Name) {
					nodes = append(nodes, n)
				}
			}
			// Upstream walks preRes.NodeNames (a set); with one worker the order only matters for
			// sampling, which a PreFilter result this small never reaches.
			diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sortedSet(unschedulable))))
		}
		numToFind := cl.numFeasibleNodesToFind(fw.PercentageOfNodesToScore(), int32(len(nodes)))
		if !fw.HasScorePlugins() {
			numToFind = 1
		}
		processed := 0
		for i := range nodes {
			if int32(len(feasible)) >= numToFind {
				break
			}
			n := nodes[(cl.nextStart+i)%len(nodes)]
			processed++
			st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, n)
			if st.Code() == fwk.Error {
				// As schedulePod: the next search starts after the nodes that got a verdict (the
				// failing one has none).
				cl.nextStart = (cl.nextStart + processed - 1) % len(allNodes)
				res.Error = st.AsError().Error()
				return res, state
			}
			if st.IsSuccess() {
				feasible = append(feasible, n)
			} else {
				diagnosis.NodeToStatus.Set(n.Node().Name, st)
				diagnosis.AddPluginStatus(st)
			}
		}
		cl.nextStart = (cl.nextStart + processed) % len(allNodes)
	}
	for _, n := range feasible {
		res.Feasible = append(res.Feasible, n.Node().Name)
	}
	if len(feasible) == 1 {
		res.Top = []string{feasible[0].Node().Name}
		return res, state
	}
	if len(feasible) > 1 {
		if st := fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			res.Error = st.AsError().Error()
			return res, state
		}
		scores, st := fw.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			res.Error = st.AsError().Error()
			return res, state
		}
		res.Scores = map[string]map[string]pluginScore{}
		res.Totals = map[string]int64{}
		var best int64 = -1 << 62
		for i, ns := range scores {
			raw, rst := fw.RunRawScorePlugins(ctx, state, pod, feasible[i])
			rawBy := map[string]int64{}
			if rst.IsSuccess() {
				for _, r := range raw {
					rawBy[r.Name] = r.Score
				}
			}
			per := map[string]pluginScore{}
			for _, p := range ns.Scores {
				w := int64(cl.weights[p.Name])
				norm := p.Score
				if w != 0 {
					norm = p.Score / w
				}
				per[p.Name] = pluginScore{Raw: rawBy[p.Name], Normalized: norm}
			}
			res.Scores[ns.Name] = per
			res.Totals[ns.Name] = ns.TotalScore
			if ns.TotalScore > best {
				best = ns.TotalScore
			}
		}
		for name, total := range res.Totals {
			if total == best {
				res.Top = append(res.Top, name)
			}
		}
		sort.Strings(res.Top)
		return res, state
	}
	// Unschedulable: PostFilter (preemption) on the diagnosis, then upstream's FitError message.
	fitErr := &framework.FitError{Pod: pod, NumAllNodes: cl.snapshot.NumNodesInPlacement(), Diagnosis: diagnosis}
	if fw.HasPostFilterPlugins() {
		cl.deletedMu.Lock()
		cl.deleted = nil
		cl.deletedMu.Unlock()
		result, st := fw.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
		fitErr.Diagnosis.PostFilterMsg = st.Message()
		if result != nil && result.NominatingInfo != nil && result.NominatingInfo.Mode() == fwk.ModeOverride && result.NominatingInfo.NominatedNodeName == "" {
			// Preemption found nothing: the scheduler clears the pod's nomination.
			res.clearNomination = true
		}
		if result != nil && result.NominatingInfo != nil && result.NominatingInfo.NominatedNodeName != "" {
			res.Nominated = result.NominatingInfo.NominatedNodeName
			cl.deletedMu.Lock()
			res.Victims = append([]string{}, cl.deleted...)
			cl.deletedMu.Unlock()
			sort.Strings(res.Victims)
		}
	}
	res.Message = fitErr.Error()
	return res, state
}

func sortedSet(s sets.Set[string]) []string { return sets.List(s) }

// place assumes the pod on the node as the scheduler's assume and Reserve do.
func (cl *cluster) place(pod *v1.Pod, node string, state fwk.CycleState) error {
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = node
	if state != nil {
		if st := cl.framework.RunReservePluginsReserve(cl.ctx, state, assumed, node); !st.IsSuccess() {
			return fmt.Errorf("reserve: %s", st.Message())
		}
	}
	if err := cl.cache.AssumePod(cl.logger, assumed); err != nil {
		return err
	}
	// A pod with ResourceClaims: its binding cycle (PreBind writes the allocation and the
	// reservation to the claims) completes before the next pod's cycle, as Podplan's simulation
	// binds a pod before it schedules the next; without it the next pod sharing a claim would find
	// the claim "in the process of being allocated".
	if state != nil && (len(pod.Spec.ResourceClaims) > 0 || cl.deviceClasses) {
		if st := cl.framework.RunPreBindPreFlights(cl.ctx, state, assumed, node); !st.IsSuccess() && !st.IsSkip() {
			return fmt.Errorf("prebind preflight: %s", st.Message())
		}
		if st := cl.framework.RunPreBindPlugins(cl.ctx, state, assumed, node); !st.IsSuccess() {
			return fmt.Errorf("prebind: %s", st.Message())
		}
	}
	cl.queue.DeleteNominatedPodIfExists(pod)
	cl.queue.Delete(cl.logger, pod)
	cl.pods[podKey(pod)] = assumed
	return nil
}

// evict removes the victims from the cache and nominates the preemptor, as their deletion and the
// scheduler's nomination would.
func (cl *cluster) evict(pod *v1.Pod, nominated string, victims []string) error {
	for _, v := range victims {
		victim, ok := cl.pods[v]
		if !ok || victim.Spec.NodeName == "" {
			return fmt.Errorf("victim %s is not a bound pod", v)
		}
		if err := cl.cache.RemovePod(cl.logger, victim); err != nil {
			return fmt.Errorf("victim %s: %w", v, err)
		}
		delete(cl.pods, v)
	}
	if nominated != "" {
		pod.Status.NominatedNodeName = nominated
		pi, _ := framework.NewPodInfo(pod)
		cl.queue.AddNominatedPod(cl.logger, pi, &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: nominated})
	}
	return nil
}

func runCase(c inputCase) (result caseResult) {
	result.ID = c.ID
	result.Cycles = []cycleResult{}
	defer func() {
		if r := recover(); r != nil {
			result.Error = fmt.Sprintf("panic: %v", r)
		}
	}()
	cl, invalid, err := newCluster(c)
	result.Invalid = invalid
	if err != nil {
		result.Error = err.Error()
		return result
	}
	defer cl.framework.Close()
	if c.Trace != nil {
		for _, step := range c.Trace {
			pod, ok := cl.pods[step.Pod]
			if !ok {
				result.Cycles = append(result.Cycles, cycleResult{Pod: step.Pod, Error: "no such pending pod"})
				break
			}
			res, state := cl.cycle(pod)
			var applyErr error
			switch {
			case step.Node != "":
				res.Applied = "node " + step.Node
				applyErr = cl.place(pod, step.Node, state)
			case step.Nominated != "":
				res.Applied = "nominated " + step.Nominated
				applyErr = cl.evict(pod, step.Nominated, step.Victims)
			default:
				res.Applied = "unschedulable"
				if res.clearNomination {
					cl.queue.DeleteNominatedPodIfExists(pod)
					pod.Status.NominatedNodeName = ""
				}
			}
			if applyErr != nil && res.Error == "" {
				res.Error = "applying Podplan's decision: " + applyErr.Error()
			}
			result.Cycles = append(result.Cycles, res)
		}
		return result
	}
	// No trace: the oracle's own queue, priority first, then input order; a preempting pod is
	// retried once its victims are gone.
	pending := []*v1.Pod{}
	for _, key := range cl.podOrder {
		p := cl.pods[key]
		if p.Spec.NodeName == "" && len(p.Spec.SchedulingGates) == 0 && (p.Spec.SchedulerName == "" || p.Spec.SchedulerName == v1.DefaultSchedulerName) {
			pending = append(pending, p)
		}
	}
	sort.SliceStable(pending, func(i, j int) bool { return priority(pending[i]) > priority(pending[j]) })
	for len(pending) > 0 {
		pod := pending[0]
		pending = pending[1:]
		res, state := cl.cycle(pod)
		if len(res.Top) > 0 {
			res.Applied = "node " + res.Top[0]
			if err := cl.place(pod, res.Top[0], state); err != nil {
				res.Error = err.Error()
			}
		} else if res.Nominated != "" {
			res.Applied = "nominated " + res.Nominated
			if err := cl.evict(pod, res.Nominated, res.Victims); err != nil {
				res.Error = err.Error()
			} else {
				pending = append([]*v1.Pod{pod}, pending...)
			}
		} else if res.clearNomination {
			cl.queue.DeleteNominatedPodIfExists(pod)
			pod.Status.NominatedNodeName = ""
		}
		result.Cycles = append(result.Cycles, res)
		if len(result.Cycles) > 10000 {
			result.Error = "too many cycles"
			break
		}
	}
	return result
}

func priority(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

var _ = metav1.Now

func waitABit() { time.Sleep(time.Millisecond) }
