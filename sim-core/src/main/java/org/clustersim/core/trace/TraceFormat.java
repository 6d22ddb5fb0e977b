package org.clustersim.core.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.clustersim.core.engine.Timeline;

/**
 * The file formats a trace can be written in: the Chrome Trace Event format's JSON (the default,
 * readable by every trace viewer) or Perfetto's native protobuf (a fraction of the size, for
 * large runs).
 */
public enum TraceFormat {
    /** {@link ChromeTraceWriter}: {@code .json}. */
    JSON("json", List.of(".json"), "open in https://ui.perfetto.dev or chrome://tracing"),
    /** {@link PerfettoTraceWriter}: {@code .pftrace} (also {@code .perfetto-trace}). */
    PERFETTO("perfetto", List.of(".pftrace", ".perfetto-trace"),
            "Perfetto protobuf: open in https://ui.perfetto.dev; chrome://tracing cannot read it");

    private final String id;
    private final List<String> extensions;
    private final String viewers;

    TraceFormat(String id, List<String> extensions, String viewers) {
        this.id = id;
        this.extensions = extensions;
        this.viewers = viewers;
    }

    /**
     * The format a file name's extension names ({@code .json}; {@code .pftrace} or
     * {@code .perfetto-trace}), ignoring case; empty for any other name.
     */
    public static Optional<TraceFormat> ofFileName(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        for (TraceFormat f : values()) {
            for (String e : f.extensions) {
                if (lower.endsWith(e)) {
                    return Optional.of(f);
                }
            }
        }
        return Optional.empty();
    }

    /** Where a file of this format opens, for the line that names the written trace. */
    public String viewers() {
        return viewers;
    }

    /** The extension the file name ends in, if it is one of this format's, else empty. */
    public Optional<String> extensionOf(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        return extensions.stream().filter(lower::endsWith).findFirst();
    }

    /** The name on the command line. */
    public String id() {
        return id;
    }

    /** The file name extension of a default trace path, with its dot. */
    public String extension() {
        return extensions.get(0);
    }

    /**
     * Writes the trace of {@code timeline}; {@code otherData} (scenario name, ...) goes where the
     * format has room for it (the JSON's {@code otherData}).
     */
    public void write(Timeline timeline, OutputStream out, Map<String, String> otherData,
                      List<ChromeTraceWriter.Marker> markers) throws IOException {
        if (this == JSON) {
            ChromeTraceWriter.write(timeline, out, otherData, markers);
        } else {
            PerfettoTraceWriter.write(timeline, out, markers);
        }
    }
}
