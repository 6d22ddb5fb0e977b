package org.clustersim.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.topology.ClusterPresets;
import org.clustersim.topology.ClusterSpec;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code clustersim presets}: lists the named clusters, device profiles and models. */
@Command(name = "presets", mixinStandardHelpOptions = true,
        description = "List the cluster presets, the bundled device profiles and the model presets.")
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
        out.printf(Locale.ROOT, "%-30s %9s %9s %7s %9s %9s  %s%n", "device profile (deviceProfile)", "bf16 peak",
                "best GEMM", "HBM", "TB/s", "attention", "fp8 peak / best");
        for (String name : DeviceProfiles.NAMES) {
            DeviceProfile p = DeviceProfiles.bundled(name);
            out.printf(Locale.ROOT, "%-30s %9.0f %9.1f %6.0fG %9.2f %9s  %s%n", name, p.bf16Flops() / 1e12,
                    p.bf16Gemm().bestFlops() / 1e12, p.hbmBytes() / 1e9, p.hbmBytesPerS() / 1e12,
                    p.defaultAttention().key(), p.fp8Gemm() == null ? "-" : String.format(Locale.ROOT, "%.0f / %.1f",
                            p.fp8Flops() / 1e12, p.fp8Gemm().bestFlops() / 1e12));
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
