package org.clustersim.core.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.DeviceInfo;
import org.clustersim.core.engine.OpBreakdown;
import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;

/**
 * Writes a {@link Timeline} in the Chrome Trace Event format (JSON object form), readable by
 * ui.perfetto.dev and chrome://tracing.
 *
 * <p>One process per server, one thread per (device, stream), so a serial resource never
 * overlaps itself on one thread. Tasks are complete ("X") events with microsecond timestamps
 * carrying the exact nanosecond as three decimals. A point-to-point transfer is drawn on both
 * the sender's and the receiver's stream, joined by a flow arrow ("s" on the sender, "f" with
 * {@code "bp":"e"} on the receiver). Counter tracks (link throughput) are "C" events of an
 * extra process named {@code counters}, listed after the servers. Events are streamed through a Jackson generator, so the
 * trace is never held in memory as a whole; within a thread they appear in time order.
 */
public final class ChromeTraceWriter {
    private static final JsonFactory JSON = new JsonFactory();

    private ChromeTraceWriter() {
    }

    /**
     * Writes the trace.
     *
     * @param timeline  the run to draw
     * @param out       destination; not closed
     * @param otherData free-form key/value pairs stored under {@code otherData} (scenario name, ...)
     */
    public static void write(Timeline timeline, OutputStream out, Map<String, String> otherData) throws IOException {
        write(timeline, out, otherData, java.util.List.of());
    }

    /**
     * A moment worth a vertical line across the whole trace, such as a fault starting or ending.
     *
     * @param atNs simulated time
     * @param name what happened
     */
    public record Marker(long atNs, String name) {
    }

    /**
     * Writes the trace with global instant events for {@code markers} (Perfetto draws them as
     * lines across every track).
     */
    public static void write(Timeline timeline, OutputStream out, Map<String, String> otherData,
                             java.util.List<Marker> markers) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            g.writeStringField("displayTimeUnit", "ns");
            g.writeObjectFieldStart("otherData");
            for (Map.Entry<String, String> e : otherData.entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("traceEvents");
            TaskGraph graph = timeline.graph();
            writeMetadata(g, graph);
            for (Stream s : graph.streams()) {
                writeStream(g, timeline, s);
            }
            writeCounters(g, timeline);
            for (Marker m : markers) {
                g.writeStartObject();
                g.writeStringField("name", m.name());
                g.writeStringField("ph", "i");
                g.writeStringField("s", "g");
                g.writeFieldName("ts");
                g.writeNumber(micros(m.atNs()));
                g.writeNumberField("pid", 0);
                g.writeNumberField("tid", 0);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    private static void writeMetadata(JsonGenerator g, TaskGraph graph) throws IOException {
        int lastNode = Integer.MIN_VALUE;
        for (DeviceInfo d : graph.devices()) {
            if (d.node() != lastNode) {
                lastNode = d.node();
                int pid = pid(d);
                meta(g, "process_name", pid, 0, "name", "node " + d.node());
                metaInt(g, "process_sort_index", pid, 0, d.node());
            }
        }
        // Threads sort by device, then by stream creation order within the device.
        java.util.List<Stream> ordered = new java.util.ArrayList<>(graph.streams());
        ordered.sort(java.util.Comparator.comparingInt(Stream::device).thenComparingInt(Stream::id));
        for (int i = 0; i < ordered.size(); i++) {
            Stream s = ordered.get(i);
            DeviceInfo d = graph.devices().get(s.device());
            meta(g, "thread_name", pid(d), tid(s), "name", d.name() + " " + s.name());
            metaInt(g, "thread_sort_index", pid(d), tid(s), i);
        }
    }

    /** The ops of a compute slice, each with its microseconds of the slice (two decimals). */
    private static void writeOps(JsonGenerator g, OpBreakdown ops, long durationNs) throws IOException {
        g.writeObjectFieldStart("ops (us)");
        for (int i = 0; i < ops.size(); i++) {
            g.writeFieldName(ops.op(i));
            g.writeNumber(Math.round(ops.share(i) * durationNs / 10.0) / 100.0);
        }
        g.writeEndObject();
    }

    private static void writeStream(JsonGenerator g, Timeline timeline, Stream s) throws IOException {
        TaskGraph graph = timeline.graph();
        int pid = pid(graph.devices().get(s.device()));
        int tid = tid(s);
        for (int i = 0, n = graph.streamLength(s.id()); i < n; i++) {
            int id = graph.streamTask(s.id(), i);
            Task task = graph.task(id);
            long start = timeline.start(id);
            g.writeStartObject();
            g.writeStringField("name", task.name());
            g.writeStringField("cat", task.category());
            g.writeStringField("ph", "X");
            g.writeFieldName("ts");
            g.writeNumber(micros(start));
            g.writeFieldName("dur");
            g.writeNumber(micros(timeline.end(id) - start));
            g.writeNumberField("pid", pid);
            g.writeNumberField("tid", tid);
            g.writeObjectFieldStart("args");
            g.writeNumberField("task", id);
            if (task.work() instanceof Work.Compute c) {
                g.writeNumberField("flops", c.flops());
                if (c.ops() != null) {
                    writeOps(g, c.ops(), timeline.end(id) - start);
                }
                double lost = timeline.interferenceNs(id);
                if (lost >= 1) {
                    // stretched by communication kernels beside it: by how much, and the time lost
                    long dur = timeline.end(id) - start;
                    g.writeNumberField("slowdown by communication", Math.round(dur / (dur - lost) * 1000) / 1000.0);
                    g.writeNumberField("lost to communication (us)", Math.round(lost / 10.0) / 100.0);
                }
            } else if (task.work() instanceof Work.Communication comm) {
                g.writeNumberField("bytes", comm.bytes());
            }
            g.writeEndObject();
            g.writeEndObject();
            if (isPointToPoint(graph, task)) {
                boolean sender = task.stream(0) == s.id();
                g.writeStartObject();
                g.writeStringField("name", task.name());
                g.writeStringField("cat", task.category());
                g.writeStringField("ph", sender ? "s" : "f");
                if (!sender) {
                    g.writeStringField("bp", "e");
                }
                g.writeNumberField("id", id);
                g.writeFieldName("ts");
                g.writeNumber(micros(start));
                g.writeNumberField("pid", pid);
                g.writeNumberField("tid", tid);
                g.writeEndObject();
            }
        }
    }

    /** Counter tracks (link throughput, ...) as "C" events of one extra process after the servers. */
    private static void writeCounters(JsonGenerator g, Timeline timeline) throws IOException {
        Counters counters = timeline.counters();
        if (counters.trackCount() == 0) {
            return;
        }
        int maxNode = 0;
        for (DeviceInfo d : timeline.graph().devices()) {
            maxNode = Math.max(maxNode, d.node());
        }
        int pid = maxNode + 2;
        meta(g, "process_name", pid, 0, "name", "counters");
        metaInt(g, "process_sort_index", pid, 0, maxNode + 1);
        for (Counters.Series s : counters.allSeries()) {
            String name = counters.name(s.track());
            String unit = counters.unit(s.track());
            for (int i = 0; i < s.timesNs().length; i++) {
                g.writeStartObject();
                g.writeStringField("name", name);
                g.writeStringField("ph", "C");
                g.writeFieldName("ts");
                g.writeNumber(micros(s.timesNs()[i]));
                g.writeNumberField("pid", pid);
                g.writeNumberField("tid", 0);
                g.writeObjectFieldStart("args");
                g.writeNumberField(unit, s.values()[i]);
                g.writeEndObject();
                g.writeEndObject();
            }
        }
    }

    /**
     * A transfer: one flow from the device of the task's first stream to the device of its
     * second (a two-rank collective has flows both ways and is not drawn as an arrow).
     */
    private static boolean isPointToPoint(TaskGraph graph, Task task) {
        if (!(task.work() instanceof Work.Communication c) || task.streamCount() != 2 || c.phases().size() != 1
                || c.phases().get(0).flows().size() != 1) {
            return false;
        }
        var flow = c.phases().get(0).flows().get(0);
        return flow.srcDevice() == graph.stream(task.stream(0)).device()
                && flow.dstDevice() == graph.stream(task.stream(1)).device() && flow.srcDevice() != flow.dstDevice();
    }

    private static void meta(JsonGenerator g, String name, int pid, int tid, String key, String value)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeStringField(key, value);
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void metaInt(JsonGenerator g, String name, int pid, int tid, int sortIndex) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeNumberField("sort_index", sortIndex);
        g.writeEndObject();
        g.writeEndObject();
    }

    private static int pid(DeviceInfo d) {
        return d.node() + 1;
    }

    private static int tid(Stream s) {
        return s.id() + 1;
    }

    /** Nanoseconds as a decimal number of microseconds with exactly three fraction digits. */
    static String micros(long ns) {
        long whole = ns / 1000;
        long frac = ns % 1000;
        StringBuilder sb = new StringBuilder(24).append(whole).append('.');
        if (frac < 100) {
            sb.append('0');
        }
        if (frac < 10) {
            sb.append('0');
        }
        return sb.append(frac).toString();
    }
}
