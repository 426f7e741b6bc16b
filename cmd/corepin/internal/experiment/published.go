package experiment

import "encoding/json"

// The published figures each experiment is compared with. docs/experiments.md
// cites them with author, title and section.

// publishedQoS is fib(34) on a key thread of a HarmonyOS phone under heavy
// load, at QOS_BACKGROUND and at QOS_USER_INTERACTIVE (HarmonyOS developer
// documentation, "Setting Thread Priorities in High-Load Scenarios",
// Summary).
func publishedQoS() map[string]float64 {
	return map[string]float64{"background_ms": 726.8, "user_interactive_ms": 323.9, "ratio": 726.8 / 323.9}
}

// publishedPartition is each strategy's time on an Intel Core i7-1260P with
// two P cores (SMT off) and two E cores enabled (Bakhvalov, "Performance
// Analysis and Tuning on Modern CPUs", section "Task Scheduling").
func publishedPartition() map[string]float64 {
	return map[string]float64{"pinned-static": 864, "static": 567, "dynamic/4": 570, "dynamic/16": 541, "dynamic/128": 517, "dynamic/1024": 560}
}

// publishedPinnedOverBest is pinned static over the best dynamic strategy
// in publishedPartition.
const publishedPinnedOverBest = 864.0 / 517

// UnmarshalJSON fills in the published figures when a result file
// written by an earlier version keeps them under another key: they are
// the same constants.
func (r *QoSResult) UnmarshalJSON(data []byte) error {
	type plain QoSResult // without this method
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	if r.Published == nil {
		r.Published = publishedQoS()
	}
	return nil
}

// UnmarshalJSON fills in the published figures as QoSResult's does.
func (r *PartitionResult) UnmarshalJSON(data []byte) error {
	type plain PartitionResult // without this method
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	if r.PublishedMs == nil {
		r.PublishedMs = publishedPartition()
	}
	return nil
}
