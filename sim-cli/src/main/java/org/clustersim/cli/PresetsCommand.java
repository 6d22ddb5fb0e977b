package org.clustersim.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.topology.ClusterPresets;
import org.clustersim.topology.ClusterSpec;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code clustersim presets}: lists the named clusters. */
@Command(name = "presets", mixinStandardHelpOptions = true, description = "List the cluster presets.")
public final class PresetsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "%-22s %7s  %s%n", "preset", "GPUs", "fabric");
        for (Map.Entry<String, ClusterSpec> e : ClusterPresets.all().entrySet()) {
            out.printf(Locale.ROOT, "%-22s %7d  %s%n", e.getKey(), e.getValue().gpus(), e.getValue().describe());
        }
        out.flush();
        return 0;
    }
}
