package org.clustersim.cli.output;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes a run's per-GPU figures as CSV, one row per GPU, a column per traffic kind. The idle
 * time is split as docs/metrics.md defines it: computeIdleNs = pipelineBubbleNs + exposedCommNs +
 * otherWaitNs, and the exposed_KIND_ns columns add up to exposedCommNs.
 */
public final class DeviceCsv {
    private DeviceCsv() {
    }

    public static void write(RunSummary r, OutputStream out) throws IOException {
        Set<String> kinds = new TreeSet<>();
        for (RunSummary.Device d : r.devices()) {
            kinds.addAll(d.exposedByKind().keySet());
            kinds.addAll(d.overlappedByKind().keySet());
        }
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write("device,name,tpRank,cpRank,pipelineRank,dpRank,computeBusyNs,computeIdleNs,pipelineBubbleNs,"
                + "exposedCommNs,otherWaitNs,peakActivations");
        for (String k : kinds) {
            w.write(",exposed_" + k + "_ns,overlapped_" + k + "_ns");
        }
        w.write("\n");
        for (RunSummary.Device d : r.devices()) {
            w.write(String.format(Locale.ROOT, "%d,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.3f", d.device(), d.name(), d.tpRank(),
                    d.cpRank(), d.pipelineRank(), d.dpRank(), d.computeBusyNs(), d.computeIdleNs(),
                    d.pipelineBubbleNs(), d.exposedCommNs(), d.otherWaitNs(), d.peakActivations()));
            for (String k : kinds) {
                w.write("," + d.exposedByKind().getOrDefault(k, 0L) + "," + d.overlappedByKind().getOrDefault(k, 0L));
            }
            w.write("\n");
        }
        w.flush();
    }
}
