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

/** {@code clustersim presets}: lists the named clusters and models. */
@Command(name = "presets", mixinStandardHelpOptions = true, description = "List the cluster and model presets.")
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
        out.println();
        out.printf(Locale.ROOT, "%-20s %6s %6s %5s %5s %4s %6s %-28s %9s %9s%n", "model (model.preset)", "layers",
                "hidden", "heads", "kv", "d", "ffn", "experts", "params", "active");
        for (var m : org.clustersim.strategies.model.TransformerModel.presets().values()) {
            var x = m.experts();
            String experts = x == null ? "-" : String.format(Locale.ROOT, "%d x %d, top %d%s%s", x.count(), x.ffn(),
                    x.topK(), x.shared() > 0 ? " + " + x.shared() + " shared" : "",
                    x.denseLayers() > 0 ? ", " + x.denseLayers() + " dense" : "");
            out.printf(Locale.ROOT, "%-20s %6d %6d %5d %5d %4d %6d %-28s %8.1fB %8.1fB%n", m.name(), m.layers(),
                    m.hidden(), m.heads(), m.kvHeads(), m.headDim(), m.ffn(), experts, m.parameters() / 1e9,
                    m.activeParameters() / 1e9);
        }
        out.flush();
        return 0;
    }
}
