package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;
import static org.clustersim.study.scenario.SectionChecks.given;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.input.SourceTreeReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.clustersim.strategies.training.Layout;
import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.strategies.training.LayoutRules;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.core.Simulation;
import org.clustersim.topology.HostAttachment;

/**
 * Reads and validates a scenario file into a {@link Scenario}. All errors of a file are
 * collected and thrown together as one {@link InputFileException}; each names the file, line,
 * column and field path, what was found and what was expected. The accepted format is
 * documented in docs/scenario-format.md.
 */
public final class ScenarioReader {
    private final SourceTreeReader treeReader = new SourceTreeReader();

    /**
     * Reads a file.
     *
     * @throws InputFileException listing every problem found
     */
    public Scenario read(Path file) {
        return read(file, treeReader.read(file));
    }

    /**
     * Reads a scenario held in memory as if it were the content of {@code file} (errors name that
     * file; relative paths in it resolve against its folder).
     *
     * @throws InputFileException listing every problem found
     */
    public Scenario readText(Path file, String text) {
        return read(file, treeReader.readText(file, text));
    }

    /**
     * Reads a scenario from a tree already parsed ({@code file} names it in errors): a job of a
     * shared-cluster file ({@link SharedScenarioReader}) is read from its part of that file's tree.
     *
     * @throws InputFileException listing every problem found
     */
    public Scenario read(Path file, SourceNode tree) {
        Diagnostics d = new Diagnostics(file);
        Section root = Section.root(d, tree);
        if (SharedScenarioReader.isShared(tree)) {
            root.error("jobs", "a shared-cluster file (a jobs list) is read by run, validate, place and whatif; this command "
                    + "takes a single-job scenario");
            d.throwIfAny();
        }
        if (root.has(WorkloadScenarioReader.WORKLOAD)) {
            root.error(WorkloadScenarioReader.WORKLOAD, "a scenario with a workload section (an imported Chakra trace) "
                    + "is simulated by 'clustersim run' only; this command reads model scenarios (docs/workloads.md)");
            d.throwIfAny();
        }

        // each section is read in the order its errors are listed to the user
        String name = NAME.text(root).orElseGet(() -> stem(file));
        Section clusterSec = CLUSTER.section(root);
        Section modelSec = MODEL.section(root);
        Section parSec = PARALLELISM.section(root);
        Section schedSec = SCHEDULE.section(root);
        Section trainSec = TRAINING.section(root);
        Section netSec = NETWORK.section(root);
        List<Fault> faults = new FaultListReader(FAULTS.list(root), d).read();
        Section outSec = OUTPUT.section(root);
        Section simSec = SIMULATION.section(root);
        boolean allReplicas = REPLICAS.choice(simSec);
        boolean allowOom = ALLOW_OOM.bool(simSec);
        boolean interference = INTERFERENCE.bool(simSec);
        int steps = STEPS.integer(simSec);
        Simulation.Kernel kernel = KERNEL.choice(simSec);

        ParallelismSectionReader parallelism = new ParallelismSectionReader(parSec, schedSec);
        Scenario.Parallelism declared = parallelism.declared();
        ScheduleKind schedule = parallelism.schedule();
        List<LayoutRules.Violation> gatherRules = new ArrayList<>();
        LayoutRules.overlapParamGatherWithOptimizerStep(gatherRules, declared.overlapParamGatherWithOptimizerStep(),
                declared.overlapParamGather(), schedule == ScheduleKind.INTERLEAVED);
        SectionChecks.report(parSec, gatherRules);
        boolean blockingSends = P2P.choice(schedSec);
        int chunks = parallelism.chunks(schedule, declared.vp());
        Scenario.Training training = new TrainingSectionReader(trainSec).read();
        long bucket = given(parSec, BUCKET.name()) ? declared.layout().comm().bucketBytes()
                : TrainingStep.defaultBucketBytes(declared.layout().mesh().dp() * declared.layout().mesh().cp(), training.mainGradBytes());
        Scenario.Parallelism par = new Scenario.Parallelism(Layout.builder().layout(declared.layout())
                .bucketBytes(bucket).layout(), chunks, declared.layersPerStage(), declared.overlapParamGather(),
                declared.alignParamGather(), declared.overlapParamGatherWithOptimizerStep(),
                declared.overlapMoeExpertParallelComm());
        ModelSectionReader modelReader = new ModelSectionReader(modelSec);
        Optional<TransformerModel> model = modelReader.read();
        ClusterSectionReader clusterReader = new ClusterSectionReader(clusterSec, file, treeReader);
        Optional<ClusterSectionReader.ClusterChoice> cluster;
        HostAttachment host = null;
        // an unknown preset was reported; the rest is read as for the default (GPU) preset
        String preset = CLUSTER_PRESET.choice(clusterSec);
        boolean collectiveMatmul = TpuSectionReader.collectiveMatmul(parSec);
        if (TpuSectionReader.presets().contains(preset)) {
            Optional<TpuSectionReader.TpuCluster> tpu = TpuSectionReader.cluster(clusterSec, preset, parSec,
                    clusterReader::deviceProfile);
            cluster = tpu.map(t -> new ClusterSectionReader.ClusterChoice(t.torus(), t.device()));
            if (tpu.isPresent() && tpu.get().mesh().isPresent()) {
                par = TpuSectionReader.parallelism(parSec, tpu.get().mesh().get(), par,
                        collectiveMatmul);
                // a mesh's step keeps memory as XLA does under the remat policy
                training = training.withXlaRemat(TpuSectionReader.xlaRemat(training));
            } else {
                training = training.withXlaRemat(null);
            }
        } else {
            if (TpuSectionReader.hasMesh(parSec)) {
                parSec.error("mesh", "a JAX mesh (ici_* and dcn_* degrees) lays out TPU chips; expected cluster.preset "
                        + String.join(", ", TpuSectionReader.presets()) + ", or tp, dp, pp, cp for GPUs");
            }
            TpuSectionReader.gpuCluster(clusterSec, parSec);
            cluster = clusterReader.read(preset, par);
            training = training.withXlaRemat(null);
            host = clusterReader.host(preset, cluster.map(c -> c.spec().accelerator().name()).orElse(preset))
                    .orElse(null);
        }
        if (training.cpuOffloadLayers() > 0 && host == null) {
            trainSec.error("cpuOffloadLayers", TpuSectionReader.presets().contains(preset)
                    ? "activation offload to the CPU is modelled on GPU clusters only; leave cpuOffloadLayers out"
                    : "the host link of " + preset + " is not known; give cluster.hostLinkGBps and "
                    + "cluster.hostMemoryGB");
        }
        AttentionImpl attention = modelReader.attention(cluster.map(ClusterSectionReader.ClusterChoice::device));
        Simulation.Fidelity fidelity = FIDELITY.choice(netSec);
        Simulation.Routing routing = ROUTING.choice(netSec);
        Scenario.Output output = new Scenario.Output(TRACE.text(outSec), SUMMARY.text(outSec),
                LINK_COUNTERS.bool(outSec));

        if (model.isPresent()) {
            int stages = par.layout().mesh().pp() * (schedule == ScheduleKind.DUALPIPE ? 1 : par.vp());
            int[] split = parallelism.layersPerStage(par.layersPerStage(), stages, model.get().layers());
            if (split != par.layersPerStage()) {
                par = new Scenario.Parallelism(par.layout(), par.vp(), split, par.overlapParamGather(),
                        par.alignParamGather(), par.overlapParamGatherWithOptimizerStep(),
                        par.overlapMoeExpertParallelComm());
            }
        }
        for (Section s : List.of(clusterSec, modelSec, parSec, schedSec, trainSec, netSec, outSec, simSec, root)) {
            s.finish();
        }
        if (!d.hasErrors()) {
            new CrossSectionCheck(clusterSec, parSec, schedSec, trainSec).check(cluster.orElseThrow().spec(),
                    cluster.orElseThrow().device(), model.orElseThrow(), par, schedule, training);
        }
        if (d.hasErrors()) {
            d.throwIfAny();
        }
        ClusterSectionReader.ClusterChoice chosen = cluster.orElseThrow();
        Scenario scenario = new Scenario(name, file, chosen.spec(), chosen.device(), model.orElseThrow(), attention,
                blockingSends, par, schedule, training, fidelity, routing, faults, allReplicas, allowOom, interference,
                steps, kernel, output, host);
        if (training.cpuOffloadLayers() > 0) {
            hostMemory(scenario, trainSec);
            d.throwIfAny();
        }
        return scenario;
    }

    /**
     * Whether the host holds what is offloaded: one microbatch's offloaded layers per GPU against
     * the host memory each GPU has (cluster.hostMemoryGB).
     */
    private static void hostMemory(Scenario scenario, Section trainSec) {
        TrainingStep step = scenario.trainingStep();
        long need = new MemoryModel(step).hostOffloadBytes();
        double have = scenario.host().hostBytesPerGpu();
        if (need > have) {
            trainSec.error("cpuOffloadLayers", String.format(java.util.Locale.ROOT, "found %d, whose activations "
                    + "take %.1f GB of host memory per GPU, but the host has %.1f GB per GPU (cluster.hostMemoryGB); "
                    + "expected fewer layers or more host memory", scenario.training().cpuOffloadLayers(), need / 1e9,
                    have / 1e9));
        }
    }

    private static String stem(Path file) {
        String f = file.getFileName().toString();
        int dot = f.lastIndexOf('.');
        return dot > 0 ? f.substring(0, dot) : f;
    }
}
