package org.clustersim.core.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.Timeline;

/**
 * The file formats a trace can be written in: the Chrome Trace Event format's JSON (the default,
 * readable by every trace viewer) or Perfetto's native protobuf (a fraction of the size, for
 * large runs).
 */
public enum TraceFormat {
    /** {@link ChromeTraceWriter}: {@code .json}. */
    JSON("json", ".json"),
    /** {@link PerfettoTraceWriter}: {@code .pftrace}. */
    PERFETTO("perfetto", ".pftrace");

    private final String id;
    private final String extension;

    TraceFormat(String id, String extension) {
        this.id = id;
        this.extension = extension;
    }

    /** The name on the command line. */
    public String id() {
        return id;
    }

    /** The file name extension of a default trace path, with its dot. */
    public String extension() {
        return extension;
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
