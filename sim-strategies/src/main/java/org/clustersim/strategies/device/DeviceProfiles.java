package org.clustersim.strategies.device;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.input.SourceTreeReader;

/**
 * The device profiles bundled with clustersim, read once from the class path
 * ({@code /org/clustersim/profiles/NAME.yaml}), one per accelerator preset.
 */
public final class DeviceProfiles {
    /** The bundled profiles' names, which are the accelerator names of the cluster presets. */
    public static final List<String> NAMES = List.of("a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "gb200",
            "b300", "gb300", "tpu-v4",
            "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-7x");

    private static final Map<String, DeviceProfile> CACHE = new ConcurrentHashMap<>();
    /**
     * Parsed trees, read once per JVM: every scenario read merges its overrides into one (the tree
     * is never modified; {@link SourceNode#overlay} copies), and parsing the YAML again for each
     * of a search's candidates cost time per step and kept the parser's code compiling, run after
     * run.
     */
    private static final Map<String, SourceNode> TREES = new ConcurrentHashMap<>();

    private DeviceProfiles() {
    }

    /** The class-path resource of a bundled profile. */
    public static String resource(String name) {
        return "/org/clustersim/profiles/" + name + ".yaml";
    }

    /** Whether a profile of that name is bundled. */
    public static boolean has(String name) {
        return NAMES.contains(name);
    }

    /** The parsed tree of a bundled profile (to merge a scenario's overrides into). */
    public static SourceNode tree(String name) {
        if (!has(name)) {
            throw new IllegalArgumentException("no bundled device profile '" + name + "'; bundled: " + NAMES);
        }
        return TREES.computeIfAbsent(name, n -> new SourceTreeReader().readResource(resource(n)));
    }

    /** A bundled profile; a defect in a bundled file is a build error, so it throws. */
    public static DeviceProfile bundled(String name) {
        return CACHE.computeIfAbsent(name, n -> {
            Diagnostics d = new Diagnostics(Path.of(resource(n).substring(1)));
            DeviceProfile p = new DeviceProfileReader(d).read(tree(n), "").orElse(null);
            d.throwIfAny();
            return p;
        });
    }
}
