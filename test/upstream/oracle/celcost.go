// The oracle's -celcost mode: DRA device selectors through upstream's own CEL compiler
// (k8s.io/dynamic-resource-allocation/cel, as kube-apiserver's resource validation calls it: new
// expressions, 1.37's default feature gates) and through kube-apiserver's ResourceClaim validation.
// Input: JSON lines {"expression": "...", "device": {"driver", "attributes", "capacity"} (optional)};
// output, one line each (with the device: "matches" or "evalError", its evaluation):
//
//	{"expression": "...", "cost": <estimated max cost, absent when it does not compile>,
//	 "limit": 1000000, "compileError": "...", "errors": ["<validation's field errors>"]}
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/util/feature"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/kubernetes/pkg/apis/resource"
	resourcevalidation "k8s.io/kubernetes/pkg/apis/resource/validation"
	"k8s.io/kubernetes/pkg/features"
)

type celCostInput struct {
	Expression string `json:"expression"`
	// Device, when given, is what the compiled selector is evaluated on (DeviceMatches).
	Device *celCostDevice `json:"device,omitempty"`
}

type celCostDevice struct {
	Driver     string                                                    `json:"driver"`
	Attributes map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes,omitempty"`
	Capacity   map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity,omitempty"`
}

type celCostOutput struct {
	Expression   string   `json:"expression"`
	Cost         *uint64  `json:"cost,string,omitempty"`
	Limit        uint64   `json:"limit"`
	CompileError string   `json:"compileError,omitempty"`
	Errors       []string `json:"errors"`
	// Matches and EvalError: the selector's verdict on the input's device.
	Matches   *bool  `json:"matches,omitempty"`
	EvalError string `json:"evalError,omitempty"`
}

func runCelCost(reader io.Reader, enc *json.Encoder) error {
	scanner := bufio.NewScanner(reader)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	compiler := dracel.GetCompiler(dracel.Features{
		EnableConsumableCapacity: feature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		EnableListTypeAttributes: feature.DefaultFeatureGate.Enabled(features.DRAListTypeAttributes),
	})
	envType := environment.NewExpressions
	for scanner.Scan() {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		var in celCostInput
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			return fmt.Errorf("celcost input: %w", err)
		}
		out := celCostOutput{Expression: in.Expression, Limit: resource.CELSelectorExpressionMaxCost, Errors: []string{}}
		result, panicked := compileRecovering(compiler, in.Expression, envType)
		if panicked != "" {
			// cel-go's homogeneous-literal validator indexes an optional element's type parameters
			// without looking (cel/validator.go line 329): a dyn element panics.
			out.CompileError = "panic: " + panicked
			if err := enc.Encode(out); err != nil {
				return err
			}
			continue
		}
		if result.Error != nil {
			out.CompileError = result.Error.Detail
		} else {
			cost := result.MaxCost
			out.Cost = &cost
			if in.Device != nil {
				matches, _, err := result.DeviceMatches(context.Background(), dracel.Device{
					Driver:     in.Device.Driver,
					Attributes: in.Device.Attributes,
					Capacity:   in.Device.Capacity,
				})
				if err != nil {
					out.EvalError = err.Error()
				} else {
					out.Matches = &matches
				}
			}
		}
		claim := &resource.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"},
			Spec: resource.ResourceClaimSpec{Devices: resource.DeviceClaim{Requests: []resource.DeviceRequest{{
				Name: "r",
				Exactly: &resource.ExactDeviceRequest{
					DeviceClassName: "gpu",
					AllocationMode:  resource.DeviceAllocationModeExactCount,
					Count:           1,
					Selectors:       []resource.DeviceSelector{{CEL: &resource.CELDeviceSelector{Expression: in.Expression}}},
				},
			}}}},
		}
		for _, e := range resourcevalidation.ValidateResourceClaim(claim) {
			out.Errors = append(out.Errors, e.Error())
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return scanner.Err()
}

// compileRecovering compiles as kube-apiserver does, or says why cel-go panicked (kube-apiserver's
// handler would recover and answer 500).
func compileRecovering(compiler interface {
	CompileCELExpression(string, dracel.Options) dracel.CompilationResult
}, expression string, envType environment.Type) (result dracel.CompilationResult, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return compiler.CompileCELExpression(expression, dracel.Options{EnvType: &envType}), ""
}

func celCostMain(path string, enc *json.Encoder) {
	var reader io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		reader = f
	}
	if err := runCelCost(reader, enc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
