package org.clustersim.cli.plan;

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
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build());

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
            doc.set("model", modelSection(model));
        } else if (!doc.has("model")) {
            throw new InputException("give --model (a preset such as llama3-70b, or a file), or --base with a model "
                    + "section");
        }
        if (cluster != null) {
            clusterSections(doc, cluster, nodes);
        } else if (!doc.has("cluster")) {
            throw new InputException("give --cluster (a preset such as superpod-h100-4su, or a scenario file), or "
                    + "--base with a cluster section");
        }
        ObjectNode training = section(doc, "training");
        if (globalBatch != null) {
            training.put("globalBatch", globalBatch);
        }
        if (seqLen != null) {
            training.put("seqLen", seqLen);
        }
        if (!training.path("globalBatch").canConvertToInt() || !training.path("seqLen").canConvertToInt()) {
            throw new InputException("give --global-batch and --seq (or a --base scenario with training.globalBatch "
                    + "and training.seqLen)");
        }
        ObjectNode sim = section(doc, "simulation");
        boolean faults = doc.has("faults") && doc.get("faults").size() > 0;
        // one replica stands for all when they are alike; faults make them differ
        sim.put("replicas", faults ? "all" : "one");
        sim.remove("steps");
        doc.remove("output");
        doc.remove("name");
        return new BaseScenario(doc, folder, cluster);
    }

    /** The GPUs of the cluster section: nodes x GPUs per node (the preset's when not given). */
    public int gpus() {
        JsonNode c = base.get("cluster");
        String preset = c.has("preset") ? c.get("preset").asText() : "dgx-h100";
        int perNode = c.has("gpusPerNode") ? c.get("gpusPerNode").asInt()
                : org.clustersim.topology.SwitchedClusterSpec.preset(preset, 1).map(x -> x.gpusPerNode()).orElse(8);
        int nodes = c.has("nodes") ? c.get("nodes").asInt() : 1;
        return nodes * perNode;
    }

    /** The model's layers: the model section's, else its preset's; 0 when neither says. */
    public int layers() {
        JsonNode m = base.get("model");
        if (m.has("layers") && m.get("layers").canConvertToInt()) {
            return m.get("layers").asInt();
        }
        var preset = org.clustersim.strategies.model.TransformerModel.presets().get(m.path("preset").asText(""));
        return preset == null ? 0 : preset.layers();
    }

    /** The cluster as the user named it: the preset given, else the section's preset and servers. */
    public String clusterLabel() {
        if (clusterArgument != null && ClusterPresets.byName(clusterArgument).isPresent()) {
            return clusterArgument;
        }
        JsonNode c = base.get("cluster");
        return c.path("preset").asText("dgx-h100") + " x " + c.path("nodes").asInt(1) + " servers"
                + (c.has("fabric") ? ", " + c.get("fabric").asText() : "");
    }

    /** Sequences per step. */
    public int globalBatch() {
        return base.get("training").get("globalBatch").asInt();
    }

    /** Tokens per sequence. */
    public int seqLen() {
        return base.get("training").get("seqLen").asInt();
    }

    /** The folder candidates' relative paths (a device profile file) resolve against. */
    public Path folder() {
        return folder;
    }

    /** The model section's preset or name, for file names. */
    public String modelName() {
        JsonNode m = base.get("model");
        return m.has("name") ? m.get("name").asText() : m.has("preset") ? m.get("preset").asText() : "model";
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
        doc.put("name", name);
        doc.setAll(base.deepCopy());
        ObjectNode par = section(doc, "parallelism");
        par.put("tp", l.tp());
        par.put("pp", l.pp());
        par.put("cp", l.cp());
        par.put("dp", l.dp());
        if (l.ep() > 1 || par.has("ep")) {
            par.put("ep", l.ep());
        }
        par.put("zero", l.zero());
        par.remove("vp");
        par.remove("layersPerStage");
        int[] split = split(layers, l.pp() * (l.schedule().equals("dualpipe") ? 1 : l.vp()));
        if (split != null) {
            var list = par.putArray("layersPerStage");
            for (int n : split) {
                list.add(n);
            }
        }
        if (!par.has("sequenceParallel") && l.tp() > 1) {
            par.put("sequenceParallel", true);
        }
        ObjectNode sched = section(doc, "schedule");
        sched.put("kind", l.schedule());
        sched.remove("v");
        if (DesignSpace.kind(l.schedule()).takesChunks()) {
            sched.put("v", l.vp());
        }
        ObjectNode training = section(doc, "training");
        training.put("microBatch", l.mb());
        training.put("recompute", l.recompute());
        try {
            return YAML.writeValueAsString(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
            m.put("preset", model);
            return m;
        }
        Path file = Path.of(model);
        if (!Files.isRegularFile(file)) {
            throw new InputException("--model: '" + model + "' is neither a model preset ("
                    + String.join(", ", org.clustersim.strategies.model.TransformerModel.presets().keySet())
                    + ") nor a file");
        }
        ObjectNode doc = object(load(file, "--model"), "--model " + model);
        return doc.has("model") ? doc.get("model") : doc;
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
            if (!scenario.has("cluster")) {
                throw new InputException("--cluster " + cluster + ": the file has no cluster section");
            }
            ObjectNode section = object(scenario.get("cluster"), "--cluster " + cluster + ": cluster");
            if (!section.has("nodes")) {
                // the file's layout decides its cluster's size; the plan needs it written out
                section = section.deepCopy();
                section.put("nodes", new org.clustersim.cli.scenario.ScenarioReader().read(file).cluster().nodes());
            }
            doc.set("cluster", section);
            if (scenario.has("network")) {
                doc.set("network", scenario.get("network"));
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
            c.put("preset", "dgx-h100");
            c.put("nodes", spec.nodes());
            c.put("fabric", "rail-optimized");
        } else if (org.clustersim.topology.SwitchedClusterSpec.presetNames().contains(cluster)) {
            c.put("preset", cluster);
            c.put("nodes", nodes > 0 ? nodes : spec.nodes());
            if (nodes > 32) {
                c.put("fabric", "rail-optimized");
            }
        } else {
            throw new InputException("--cluster " + cluster + ": plan takes " + String.join(", ", plannable())
                    + ", or a scenario file with the cluster section");
        }
        doc.set("cluster", c);
    }

    private static List<String> plannable() {
        return ClusterPresets.all().keySet().stream().filter(n -> n.startsWith("superpod-h100")
                || org.clustersim.topology.SwitchedClusterSpec.presetNames().contains(n)).toList();
    }
}
