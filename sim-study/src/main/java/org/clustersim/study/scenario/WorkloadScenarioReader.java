package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.CLUSTER;
import static org.clustersim.study.scenario.ScenarioFields.CLUSTER_PRESET;
import static org.clustersim.study.scenario.ScenarioFields.NAME;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.input.SourceTreeReader;
import org.clustersim.strategies.collective.Collectives;

/**
 * Reads a scenario that has a {@code workload} section (an imported Chakra trace) into a
 * {@link WorkloadScenario}: {@code name}, {@code cluster} (GPU or TPU presets, read as in any scenario)
 * and {@code workload}. The model-description sections do not apply and are reported if given.
 * Every error of the file is collected into one {@link InputFileException}.
 */
public final class WorkloadScenarioReader {
    /** The section that makes a scenario an imported workload. */
    public static final String WORKLOAD = "workload";
    private static final List<String> MODEL_SECTIONS = List.of("model", "parallelism", "schedule", "training");

    private final SourceTreeReader treeReader = new SourceTreeReader();

    /** Whether {@code file} is a scenario with a {@code workload} section (reading it as {@link #read} would). */
    public boolean isWorkload(Path file) {
        return isWorkload(treeReader.read(file));
    }

    /** Whether a scenario file's parsed tree has a {@code workload} section (a caller that reads it once). */
    public static boolean isWorkload(SourceNode tree) {
        return tree instanceof SourceNode.MapNode m && m.entries().containsKey(WORKLOAD);
    }

    /**
     * Reads a file.
     *
     * @throws InputFileException listing every problem found
     */
    public WorkloadScenario read(Path file) {
        Diagnostics d = new Diagnostics(file);
        Section root = Section.root(d, treeReader.read(file));
        String name = NAME.text(root).orElseGet(() -> stem(file));
        Section clusterSec = CLUSTER.section(root);
        Section work = root.section(WORKLOAD);
        for (String s : MODEL_SECTIONS) {
            if (root.has(s)) {
                root.error(s, "a workload scenario takes its work from workload.chakraTrace; leave " + s + " out");
                root.section(s);
            }
        }
        Optional<String> trace = work.text("chakraTrace");
        if (trace.isEmpty() && !work.has("chakraTrace")) {
            work.error("chakraTrace", "missing; expected a folder of Chakra .et files (one per rank) or a glob "
                    + "such as traces/job.*.et, relative to the scenario file");
        }
        double scale = work.optionalNumber("durationScale", 1e-6, 1e3).orElse(1.0);
        int ranks = work.optionalInteger("ranks", 1, 1 << 20).orElse(0);
        String algorithm = work.text("collectiveAlgorithm").orElse("auto");
        if (!Collectives.names().contains(algorithm)) {
            work.error("collectiveAlgorithm", "found '" + algorithm + "', expected one of "
                    + String.join(", ", Collectives.names()));
        }
        String computeFrom = work.text("computeFrom").orElse(WorkloadScenario.FLOPS);
        if (!List.of(WorkloadScenario.FLOPS, WorkloadScenario.DURATION).contains(computeFrom)) {
            work.error("computeFrom", "found '" + computeFrom + "', expected " + WorkloadScenario.FLOPS
                    + " (num_ops at the device's GEMM rate where given, else the recorded duration) or "
                    + WorkloadScenario.DURATION + " (the recorded duration always)");
        }
        String preset = CLUSTER_PRESET.choice(clusterSec);
        // no layout: a GPU cluster's size comes from cluster.nodes (default one server), a TPU slice's
        // from cluster.topology; the parallelism a model scenario gives is the trace's here
        Section none = new Section(d, "parallelism", null, null);
        ClusterSectionReader clusterReader = new ClusterSectionReader(clusterSec, file, treeReader);
        Optional<ClusterSectionReader.ClusterChoice> cluster;
        if (TpuSectionReader.presets().contains(preset)) {
            cluster = TpuSectionReader.cluster(clusterSec, preset, none, clusterReader::deviceProfile)
                    .map(t -> new ClusterSectionReader.ClusterChoice(t.torus(), t.device()));
        } else {
            cluster = clusterReader.read(preset, new ParallelismSectionReader(none, none).declared());
        }
        for (Section s : List.of(clusterSec, work, root)) {
            s.finish();
        }
        d.throwIfAny();
        ClusterSectionReader.ClusterChoice c = cluster.orElseThrow();
        return new WorkloadScenario(name, file, c.spec(), c.device(), trace.orElseThrow(), scale, algorithm, ranks,
                computeFrom.equals(WorkloadScenario.DURATION));
    }

    private static String stem(Path file) {
        String f = file.getFileName().toString();
        int dot = f.lastIndexOf('.');
        return dot > 0 ? f.substring(0, dot) : f;
    }
}
