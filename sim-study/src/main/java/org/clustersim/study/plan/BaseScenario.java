package org.clustersim.study.plan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

import static org.clustersim.study.scenario.ScenarioFields.*;

import org.clustersim.core.input.InputException;
import org.clustersim.topology.ClusterPresets;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.SuperPodSpec;

/**
 * The scenario document every candidate of a plan starts from: a base scenario's fields (or
 * none), the model and cluster sections from {@code --model} and {@code --cluster}, the global
 * batch and sequence length, one replica simulated when the cluster is symmetric (no faults) and
 * one step. A candidate is this document with its layout written in ({@link #scenarioText}): the
 * same YAML text is what the search simulates and what it writes for the winner, so that
 * {@code clustersim run} on the winner's file repeats the search's simulation exactly.
 */
public final class BaseScenario {
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            // doubles in their shortest form on every JDK (JDK 17's Double.toString is not)
            .enable(com.fasterxml.jackson.core.StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build());

    private final ObjectNode base;
    private final Path folder;
    private final String clusterArgument;

    private BaseScenario(ObjectNode base, Path folder, String clusterArgument) {
        this.base = base;
        this.folder = folder;
        this.clusterArgument = clusterArgument;
    }

    /**
     * @param baseFile    a scenario whose fields the candidates keep, or null
     * @param model       a model preset name, or a YAML file: a scenario (its model section) or a model section
     * @param cluster     a cluster preset (superpod-h100-Nsu, dgx-h100, ...), or a scenario file (its cluster
     *                    and network sections)
     * @param nodes       servers for a single-server preset such as dgx-h100 (0: the preset's own)
     * @param globalBatch sequences per step
     * @param seqLen      tokens per sequence
     */
    public static BaseScenario of(Path baseFile, String model, String cluster, int nodes, Integer globalBatch,
                                  Integer seqLen) {
        ObjectNode doc = baseFile == null ? YAML.createObjectNode() : object(load(baseFile, "--base"), "--base "
                + baseFile);
        Path folder = baseFile == null ? Path.of("").toAbsolutePath() : baseFile.toAbsolutePath().getParent();
        if (model != null) {
            doc.set(MODEL.name(), modelSection(model));
        } else if (!doc.has(MODEL.name())) {
            throw new InputException("give --model (a preset such as llama3-70b, or a file), or --base with a model "
                    + "section");
        }
        if (cluster != null) {
            clusterSections(doc, cluster, nodes);
        } else if (!doc.has(CLUSTER.name())) {
            throw new InputException("give --cluster (a preset such as superpod-h100-4su, or a scenario file), or "
                    + "--base with a cluster section");
        }
        ObjectNode training = section(doc, TRAINING.name());
        if (globalBatch != null) {
            training.put(GLOBAL_BATCH.name(), globalBatch);
        }
        if (seqLen != null) {
            training.put(SEQ_LEN.name(), seqLen);
        }
        if (!training.path(GLOBAL_BATCH.name()).canConvertToInt()
                || !training.path(SEQ_LEN.name()).canConvertToInt()) {
            throw new InputException("give --global-batch and --seq (or a --base scenario with training.globalBatch "
                    + "and training.seqLen)");
        }
        ObjectNode sim = section(doc, SIMULATION.name());
        boolean faults = doc.has(FAULTS.name()) && doc.get(FAULTS.name()).size() > 0;
        // one replica stands for all when they are alike; faults make them differ
        sim.put(REPLICAS.name(), faults ? "all" : "one");
        sim.remove(STEPS.name());
        doc.remove(OUTPUT.name());
        doc.remove(NAME.name());
        return new BaseScenario(doc, folder, cluster);
    }

    /** The document as YAML text: what a plan's tasks carry to wherever they run ({@link #fromText}). */
    public String text() {
        try {
            return YAML.writeValueAsString(base);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The base that {@link #text} wrote, its relative paths resolving against {@code folder}. */
    public static BaseScenario fromText(String text, String folder, String clusterArgument) {
        try {
            return new BaseScenario(object(YAML.readTree(text), "plan base"), Path.of(folder), clusterArgument);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The cluster as given on the command line, or null. */
    String clusterArgument() {
        return clusterArgument;
    }

    /**
     * What the base itself states of the options a layout leaves to it (neutral values), as the
     * candidates' scenarios would read them: a field missing is null (or false, 0).
     *
     * @param sequenceParallel  parallelism.sequenceParallel, or null (on with tp &gt; 1)
     * @param etp               parallelism.etp, or null (tp)
     * @param cpVariant         parallelism.cpVariant, or null
     * @param tpCommOverlap     parallelism.tpCommOverlap
     * @param overlapParamGather parallelism.overlapParamGather
     * @param bucketMB          parallelism.gradBucketMB, or null
     * @param recomputeModules  training.recomputeModules, or null
     * @param cpuOffloadLayers  training.cpuOffloadLayers
     */
    public record Stated(Boolean sequenceParallel, Integer etp, String cpVariant, boolean tpCommOverlap,
                         boolean overlapParamGather, Double bucketMB, List<String> recomputeModules,
                         int cpuOffloadLayers) {
    }

    /** The options the base states ({@link Stated}). */
    public Stated stated() {
        JsonNode par = base.path(PARALLELISM.name());
        JsonNode training = base.path(TRAINING.name());
        List<String> modules = null;
        if (training.has(RECOMPUTE_MODULES.name())) {
            modules = new java.util.ArrayList<>();
            for (JsonNode n : training.get(RECOMPUTE_MODULES.name())) {
                modules.add(n.asText());
            }
        }
        return new Stated(par.has(SEQUENCE_PARALLEL.name()) ? par.get(SEQUENCE_PARALLEL.name()).asBoolean() : null,
                par.has(ETP.name()) ? par.get(ETP.name()).asInt() : null,
                par.has(CP_VARIANT.name()) ? par.get(CP_VARIANT.name()).asText() : null,
                par.path(TP_COMM_OVERLAP.name()).asBoolean(false), par.path(OVERLAP_PARAM_GATHER.name()).asBoolean(false),
                par.has(BUCKET.name()) ? par.get(BUCKET.name()).asDouble() : null, modules,
                training.path(CPU_OFFLOAD_LAYERS.name()).asInt(0));
    }

    /** The GPUs of the cluster section: nodes x GPUs per node (the preset's when not given). */
    public int gpus() {
        JsonNode c = base.get(CLUSTER.name());
        String preset = c.has(CLUSTER_PRESET.name()) ? c.get(CLUSTER_PRESET.name()).asText() : "dgx-h100";
        int perNode = c.has(GPUS_PER_NODE.name()) ? c.get(GPUS_PER_NODE.name()).asInt()
                : org.clustersim.topology.SwitchedClusterSpec.preset(preset, 1).map(x -> x.gpusPerNode()).orElse(8);
        int nodes = c.has(NODES.name()) ? c.get(NODES.name()).asInt() : 1;
        return nodes * perNode;
    }

    /** The model's layers: the model section's, else its preset's; 0 when neither says. */
    public int layers() {
        JsonNode m = base.get(MODEL.name());
        if (m.has(LAYERS.name()) && m.get(LAYERS.name()).canConvertToInt()) {
            return m.get(LAYERS.name()).asInt();
        }
        var preset = org.clustersim.strategies.model.TransformerModel.presets()
                .get(m.path(MODEL_PRESET.name()).asText(""));
        return preset == null ? 0 : preset.layers();
    }

    /** The cluster as the user named it: the preset given, else the section's preset and servers. */
    public String clusterLabel() {
        if (clusterArgument != null && ClusterPresets.byName(clusterArgument).isPresent()) {
            return clusterArgument;
        }
        JsonNode c = base.get(CLUSTER.name());
        return c.path(CLUSTER_PRESET.name()).asText("dgx-h100") + " x " + c.path(NODES.name()).asInt(1) + " servers"
                + (c.has(FABRIC.name()) ? ", " + c.get(FABRIC.name()).asText() : "");
    }

    /** Sequences per step. */
    public int globalBatch() {
        return base.get(TRAINING.name()).get(GLOBAL_BATCH.name()).asInt();
    }

    /** Tokens per sequence. */
    public int seqLen() {
        return base.get(TRAINING.name()).get(SEQ_LEN.name()).asInt();
    }

    /** The folder candidates' relative paths (a device profile file) resolve against. */
    public Path folder() {
        return folder;
    }

    /** The model section's preset or name, for file names. */
    public String modelName() {
        JsonNode m = base.get(MODEL.name());
        return m.has(MODEL_NAME.name()) ? m.get(MODEL_NAME.name()).asText() : m.has(MODEL_PRESET.name())
                ? m.get(MODEL_PRESET.name()).asText() : "model";
    }

    /**
     * The scenario of one layout, as YAML text with the name {@code name}. The layout's fields
     * replace the base's; the base's own layer split is dropped (it fits one pipeline depth), and
     * sequence parallelism is on with tensor parallelism unless the base says otherwise. When the
     * stages do not divide the {@code layers}, the split gives the first and last stage the fewer
     * layers (they also hold the embedding and the output layer), as Llama 3 405B's 126 layers ran
     * on 16 stages as 7, 8 x 14, 7; 0 layers: leave the split to the reader.
     */
    public String scenarioText(String name, Layout l, int layers) {
        ObjectNode doc = YAML.createObjectNode();
        doc.put(NAME.name(), name);
        doc.setAll(base.deepCopy());
        ObjectNode par = section(doc, PARALLELISM.name());
        par.put(TP.name(), l.tp());
        par.put(PP.name(), l.pp());
        par.put(CP.name(), l.cp());
        par.put(DP.name(), l.dp());
        if (l.ep() > 1 || par.has(EP.name())) {
            par.put(EP.name(), l.ep());
        }
        par.put(ZERO.name(), l.zero());
        par.remove(VP.name());
        par.remove(LAYERS_PER_STAGE.name());
        int[] split = split(layers, l.pp() * (l.schedule().equals("dualpipe") ? 1 : l.vp()));
        if (split != null) {
            var list = par.putArray(LAYERS_PER_STAGE.name());
            for (int n : split) {
                list.add(n);
            }
        }
        if (!par.has(SEQUENCE_PARALLEL.name()) && l.tp() > 1) {
            par.put(SEQUENCE_PARALLEL.name(), true);
        }
        ObjectNode sched = section(doc, SCHEDULE.name());
        sched.put(KIND.name(), l.schedule());
        sched.remove(V.name());
        if (DesignSpace.kind(l.schedule()).takesChunks()) {
            sched.put(V.name(), l.vp());
        }
        ObjectNode training = section(doc, TRAINING.name());
        training.put(MICRO_BATCH.name(), l.mb());
        training.put(RECOMPUTE.name(), l.recompute());
        options(par, training, l);
        try {
            return YAML.writeValueAsString(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The layout's options past the schedule, each written only when the layout sets it (its
     * neutral value leaves the base's field alone); the base's fields that the layout's choices
     * rule out are removed: recomputed modules without selective recomputation, the ZeRO-3
     * framework and its options below ZeRO 3, the param-gather overlap without ZeRO 1 or 2, its
     * dispatch with the optimizer step without the param gather or the interleaved schedule, the
     * CP variant with cp 1, activation offload with pipeline stages or recomputation.
     */
    private static void options(ObjectNode par, ObjectNode training, Layout l) {
        if (l.etp() > 0) {
            par.put(ETP.name(), l.etp());
        }
        if (!l.zero3Impl().isEmpty()) {
            par.put(ZERO3_IMPL.name(), l.zero3Impl());
        } else if (l.zero() != 3) {
            par.remove(List.of(ZERO3_IMPL.name(), RESHARD.name(), GRAD_REDUCE_DTYPE.name()));
        }
        if (!l.cpVariant().isEmpty()) {
            par.put(CP_VARIANT.name(), l.cpVariant());
        } else if (l.cp() == 1) {
            par.remove(CP_VARIANT.name());
        }
        if (l.tpOverlap()) {
            par.put(TP_COMM_OVERLAP.name(), true);
        }
        if (l.overlapParamGather()) {
            par.put(OVERLAP_PARAM_GATHER.name(), true);
        } else if (l.zero() != 1 && l.zero() != 2) {
            par.remove(OVERLAP_PARAM_GATHER.name());
        }
        // Megatron-LM allows the gather inside the optimizer step only with the param gather and
        // the interleaved schedule: a base's flag must not rule out every other layout
        if (!par.path(OVERLAP_PARAM_GATHER.name()).asBoolean(false) || !l.schedule().equals("interleaved")) {
            par.remove(OVERLAP_PARAM_GATHER_WITH_OPTIMIZER_STEP.name());
        }
        if (l.bucketMB() > 0) {
            par.put(BUCKET.name(), l.bucketMB());
        }
        if (!l.recomputeModules().isEmpty()) {
            var list = training.putArray(RECOMPUTE_MODULES.name());
            for (String m : l.recomputeModules().split("\\+")) {
                list.add(m);
            }
        } else if (!l.recompute().equals("selective")) {
            training.remove(RECOMPUTE_MODULES.name());
        }
        if (l.offloadLayers() > 0) {
            training.put(CPU_OFFLOAD_LAYERS.name(), l.offloadLayers());
        } else if (l.pp() > 1 || !l.recompute().equals("none")) {
            training.remove(CPU_OFFLOAD_LAYERS.name());
        }
    }

    /**
     * What the model has that the plan's knobs depend on: its routed and shared experts, latent
     * attention and parallel blocks, from the model section's fields or else its preset's.
     */
    public DesignSpace.Model model() {
        JsonNode m = base.get(MODEL.name());
        var preset = org.clustersim.strategies.model.TransformerModel.presets()
                .get(m.path(MODEL_PRESET.name()).asText(""));
        var experts = preset == null ? null : preset.experts();
        int count = m.has(EXPERTS.name()) ? m.get(EXPERTS.name()).asInt() : experts == null ? 0 : experts.count();
        int shared = m.has(SHARED_EXPERTS.name()) ? m.get(SHARED_EXPERTS.name()).asInt()
                : experts == null ? 0 : experts.shared();
        boolean latent = m.has(LATENT.name()) || preset != null && preset.latentAttention() != null;
        boolean parallel = m.has(PARALLEL_BLOCKS.name()) ? m.get(PARALLEL_BLOCKS.name()).asBoolean()
                : preset != null && preset.parallelBlocks();
        return new DesignSpace.Model(count, count > 0 && shared > 0, latent, parallel);
    }

    /** An uneven split of {@code layers} over {@code stages}, lighter at both ends; null when even (or unknown). */
    static int[] split(int layers, int stages) {
        if (layers <= 0 || stages <= 1 || layers % stages == 0 || layers < stages) {
            return null;
        }
        int base = layers / stages;
        int extra = layers - base * stages;
        int[] out = new int[stages];
        java.util.Arrays.fill(out, base);
        // the extra layers go to the stages after the first (extra < stages), the last one's only when all others have one
        for (int s = 1; s <= extra; s++) {
            out[s]++;
        }
        return out;
    }

    private static ObjectNode section(ObjectNode doc, String name) {
        JsonNode n = doc.get(name);
        if (n instanceof ObjectNode o) {
            return o;
        }
        return doc.putObject(name);
    }

    private static JsonNode load(Path file, String flag) {
        if (!Files.isRegularFile(file)) {
            throw new InputException(flag + " " + file + ": no such file");
        }
        try {
            return YAML.readTree(file.toFile());
        } catch (IOException e) {
            throw new InputException(flag + " " + file + ": not YAML: " + e.getMessage().lines().findFirst()
                    .orElse(""));
        }
    }

    private static ObjectNode object(JsonNode n, String where) {
        if (n instanceof ObjectNode o) {
            return o;
        }
        throw new InputException(where + ": expected a mapping of scenario sections");
    }

    private static JsonNode modelSection(String model) {
        if (org.clustersim.strategies.model.TransformerModel.presets().containsKey(model)) {
            ObjectNode m = YAML.createObjectNode();
            m.put(MODEL_PRESET.name(), model);
            return m;
        }
        Path file = Path.of(model);
        if (!Files.isRegularFile(file)) {
            throw new InputException("--model: '" + model + "' is neither a model preset ("
                    + String.join(", ", org.clustersim.strategies.model.TransformerModel.presets().keySet())
                    + ") nor a file");
        }
        ObjectNode doc = object(load(file, "--model"), "--model " + model);
        return doc.has(MODEL.name()) ? doc.get(MODEL.name()) : doc;
    }

    /**
     * Writes the cluster section for a preset, or copies the cluster and network sections of a
     * scenario file. A SuperPOD preset becomes its DGX H100 servers on a rail-optimised fabric.
     */
    private static void clusterSections(ObjectNode doc, String cluster, int nodes) {
        var preset = ClusterPresets.byName(cluster);
        if (preset.isEmpty()) {
            Path file = Path.of(cluster);
            if (!Files.isRegularFile(file)) {
                throw new InputException("--cluster: '" + cluster + "' is neither a cluster preset ("
                        + String.join(", ", plannable()) + ") nor a scenario file");
            }
            ObjectNode scenario = object(load(file, "--cluster"), "--cluster " + cluster);
            if (!scenario.has(CLUSTER.name())) {
                throw new InputException("--cluster " + cluster + ": the file has no cluster section");
            }
            ObjectNode section = object(scenario.get(CLUSTER.name()), "--cluster " + cluster + ": cluster");
            if (!section.has(NODES.name())) {
                // the file's layout decides its cluster's size; the plan needs it written out
                section = section.deepCopy();
                section.put(NODES.name(),
                        new org.clustersim.study.scenario.ScenarioReader().read(file).cluster().nodes());
            }
            doc.set(CLUSTER.name(), section);
            if (scenario.has(NETWORK.name())) {
                doc.set(NETWORK.name(), scenario.get(NETWORK.name()));
            }
            return;
        }
        ClusterSpec spec = preset.get();
        ObjectNode c = YAML.createObjectNode();
        if (spec instanceof SuperPodSpec pod && pod.accelerator().name().toLowerCase(Locale.ROOT).contains("h100")) {
            if (nodes > 0) {
                throw new InputException("--nodes is for a single-server preset such as dgx-h100; " + cluster
                        + " has " + spec.nodes() + " servers");
            }
            c.put(CLUSTER_PRESET.name(), "dgx-h100");
            c.put(NODES.name(), spec.nodes());
            c.put(FABRIC.name(), "rail-optimized");
        } else if (org.clustersim.topology.SwitchedClusterSpec.presetNames().contains(cluster)) {
            c.put(CLUSTER_PRESET.name(), cluster);
            int servers = nodes > 0 ? nodes : spec.nodes();
            c.put(NODES.name(), servers);
            // beyond one SU of 8-GPU servers, or beyond one rack of an NVL72 preset, the servers sit
            // on the DGX SuperPOD's rails (SuperPodSpec, or RackPodSpec for racks)
            boolean racks = org.clustersim.topology.SwitchedClusterSpec.preset(cluster, 1)
                    .map(x -> x.gpusPerNode() > 8).orElse(false);
            if (servers > 32 || racks && servers > 1) {
                c.put(FABRIC.name(), "rail-optimized");
            }
        } else {
            throw new InputException("--cluster " + cluster + ": plan takes " + String.join(", ", plannable())
                    + ", or a scenario file with the cluster section");
        }
        doc.set(CLUSTER.name(), c);
    }

    private static List<String> plannable() {
        return ClusterPresets.all().keySet().stream().filter(n -> n.startsWith("superpod-h100")
                || org.clustersim.topology.SwitchedClusterSpec.presetNames().contains(n)).toList();
    }
}
