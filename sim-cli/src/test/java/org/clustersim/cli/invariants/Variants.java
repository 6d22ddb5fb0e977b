package org.clustersim.cli.invariants;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Iterator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.FatTreeSpec;
import org.clustersim.topology.RackPodSpec;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.TorusSpec;

/**
 * The changes the invariants compare a scenario with, each written into the scenario's file as a
 * user would write it: every link faster, every device faster, more microbatches, more steps,
 * an option switched.
 */
final class Variants {
    private Variants() {
    }

    /** Simulates {@code n} steps back to back (the figures are the last one's: the steady state). */
    static ObjectNode steps(ObjectNode tree, int n) {
        ObjectNode t = tree.deepCopy();
        StepRun.set(t, "simulation.steps", n);
        return t;
    }

    /** The same scenario with {@code path} set to {@code value}. */
    static ObjectNode with(ObjectNode tree, String path, Object value) {
        ObjectNode t = tree.deepCopy();
        StepRun.set(t, path, value);
        return t;
    }

    /**
     * Every link of the cluster at {@code factor} times its bandwidth: the scale-up links
     * (NVLink, ICI) and the scale-out ones (NICs, DCN) the cluster fields set, and through them the
     * switch links the fabrics derive from the NIC rate.
     */
    static ObjectNode bandwidth(ObjectNode tree, ClusterSpec spec, double factor) {
        ObjectNode t = tree.deepCopy();
        if (spec instanceof SwitchedClusterSpec s) {
            gpu(t, s.nvlinkBytesPerS(), s.nicBytesPerS(), factor);
        } else if (spec instanceof FatTreeSpec s) {
            gpu(t, s.nvlinkBytesPerS(), s.nicBytesPerS(), factor);
        } else if (spec instanceof SuperPodSpec s) {
            gpu(t, s.nvlinkBytesPerS(), s.nicBytesPerS(), factor);
        } else if (spec instanceof RackPodSpec s) {
            gpu(t, s.nvlinkBytesPerS(), s.nicBytesPerS(), factor);
        } else if (spec instanceof TorusSpec s) {
            StepRun.set(t, "cluster.iciBandwidthGBps", s.iciBytesPerS() * factor / 1e9);
            StepRun.set(t, "cluster.dcnBandwidthGBpsPerChip", s.dcnBytesPerS() / s.chipsPerHost() * factor / 1e9);
        } else {
            throw new IllegalArgumentException("no bandwidth fields known for " + spec);
        }
        return t;
    }

    private static void gpu(ObjectNode t, double nvlink, double nic, double factor) {
        StepRun.set(t, "cluster.nvlinkBandwidthGBps", nvlink * factor / 1e9);
        StepRun.set(t, "cluster.nicBandwidthGBps", nic * factor / 1e9);
    }

    /**
     * The scenario on a device {@code factor} times faster at everything it computes: its bundled
     * profile with every peak, GEMM rate, attention rate and memory bandwidth multiplied by
     * {@code factor} and every fixed per-kernel time divided by it (capacities, efficiencies and
     * communication kernels unchanged), written as a profile file beside the variant.
     */
    static ObjectNode fasterDevice(ObjectNode tree, Scenario scenario, double factor, Path dir, String name) {
        ObjectNode profile = bundledProfile(scenario.device().name());
        scale(profile, factor);
        StepRun.set(profile, "name", scenario.device().name() + "-x" + factor);
        Path file = dir.resolve(name + "-profile.yaml");
        try {
            java.nio.file.Files.createDirectories(dir);
            StepRun.YAML.writeValue(file.toFile(), profile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ObjectNode t = tree.deepCopy();
        StepRun.set(t, "cluster.deviceProfile", file.getFileName().toString());
        return t;
    }

    static ObjectNode bundledProfile(String name) {
        try (InputStream in = Variants.class.getResourceAsStream("/org/clustersim/profiles/" + name + ".yaml")) {
            if (in == null) {
                throw new IllegalStateException("no bundled profile " + name);
            }
            return (ObjectNode) StepRun.YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rates times {@code f}, fixed times over {@code f}, in a profile's tree. */
    static void scale(ObjectNode p, double f) {
        times(p.get("peakTflops"), f);
        multiply(p, "memory", "bandwidthTBps", f);
        JsonNode gemm = p.get("gemm");
        if (gemm != null) {
            for (Iterator<JsonNode> it = gemm.elements(); it.hasNext(); ) {
                JsonNode dtype = it.next();
                multiply(dtype, "model", "bestTflops", f);
                multiply(dtype, "model", "fixedUs", 1 / f);
                column(dtype.get("points"), 3, f);
            }
        }
        JsonNode attention = p.get("attention");
        if (attention != null && attention.get("tables") != null) {
            for (JsonNode table : attention.get("tables")) {
                column(table.get("points"), 1, f);
            }
        }
        multiply(p, "launch", "hostUs", 1 / f);
        multiply(p, "launch", "gapUs", 1 / f);
        multiply(p, "sharding", "deepspeedHookUs", 1 / f);
    }

    /** Every numeric field of an object times {@code f}. */
    private static void times(JsonNode node, double f) {
        if (node instanceof ObjectNode o) {
            for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                if (o.get(k).isNumber()) {
                    o.put(k, o.get(k).asDouble() * f);
                }
            }
        }
    }

    private static void multiply(JsonNode parent, String section, String field, double f) {
        JsonNode s = parent == null ? null : parent.get(section);
        if (s instanceof ObjectNode o && o.get(field) != null && o.get(field).isNumber()) {
            o.put(field, o.get(field).asDouble() * f);
        }
    }

    /** Column {@code c} of every row of a points table times {@code f}. */
    private static void column(JsonNode rows, int c, double f) {
        if (rows instanceof ArrayNode a) {
            for (JsonNode row : a) {
                if (row instanceof ArrayNode r && r.size() > c) {
                    r.set(c, r.numberNode(r.get(c).asDouble() * f));
                }
            }
        }
    }
}
