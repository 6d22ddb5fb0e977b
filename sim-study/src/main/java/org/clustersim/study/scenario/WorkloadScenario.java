package org.clustersim.study.scenario;

import java.nio.file.Path;

import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.topology.ClusterSpec;

/**
 * A scenario whose work is an imported execution trace rather than a model description: the
 * cluster it runs on and where the trace is (docs/workloads.md, docs/scenario-format.md,
 * "workload").
 *
 * @param name                the scenario's name
 * @param file                the scenario file
 * @param cluster             the cluster
 * @param device              the GPUs' device profile
 * @param chakraTrace         the trace files as given: a folder or a glob, relative to the scenario's folder
 * @param durationScale       factor on recorded durations of compute nodes timed by duration
 * @param collectiveAlgorithm the collective algorithm by name, or {@code auto}
 * @param ranks               ranks to run, a multiple of the trace's (its data-parallel degree scaled), or 0
 *                            for the trace's own
 * @param byDuration          whether compute nodes take their recorded duration even where they count FLOPs
 *                            ({@code workload.computeFrom: duration}: a trace written by {@code run --et-out}
 *                            read back on its own cluster)
 */
public record WorkloadScenario(String name, Path file, ClusterSpec cluster, DeviceProfile device, String chakraTrace,
                               double durationScale, String collectiveAlgorithm, int ranks, boolean byDuration) {
    /** {@code workload.computeFrom} value: FLOPs where given (the default). */
    public static final String FLOPS = "flops";
    /** {@code workload.computeFrom} value: recorded durations always. */
    public static final String DURATION = "duration";

    /** The folder relative trace paths resolve against. */
    public Path base() {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of(".") : parent;
    }
}
