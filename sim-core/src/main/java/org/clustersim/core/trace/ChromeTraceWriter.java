package org.clustersim.core.trace;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import org.clustersim.core.engine.OpBreakdown;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;

/**
 * Writes a {@link Timeline} in the Chrome Trace Event format (JSON object form), readable by
 * ui.perfetto.dev and chrome://tracing.
 *
 * <p>What goes in is {@link TraceContent}'s: one process per server, one thread per (device,
 * stream), so a serial resource never overlaps itself on one thread. Tasks are complete ("X") events with microsecond timestamps
 * carrying the exact nanosecond as three decimals. A point-to-point transfer is drawn on both
 * the sender's and the receiver's stream, joined by a flow arrow ("s" on the sender, "f" with
 * {@code "bp":"e"} on the receiver). Counter tracks (link throughput) are "C" events of an
 * extra process named {@code counters}, listed after the servers. Events are streamed through a Jackson generator, so the
 * trace is never held in memory as a whole; within a thread they appear in time order.
 */
public final class ChromeTraceWriter {
    /** Doubles in their shortest form on every JDK (JDK 17's {@code Double.toString} is not). */
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();

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
            TraceContent.walk(timeline, markers, new JsonSink(g, timeline));
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    /** Writes {@link TraceContent}'s parts as Trace Event Format objects. */
    private record JsonSink(JsonGenerator g, Timeline timeline) implements TraceContent.Sink {
        @Override
        public void process(int pid, String name, int sortIndex) throws IOException {
            meta(g, "process_name", pid, 0, "name", name);
            metaInt(g, "process_sort_index", pid, 0, sortIndex);
        }

        @Override
        public void thread(int pid, int tid, String name, int sortIndex) throws IOException {
            meta(g, "thread_name", pid, tid, "name", name);
            metaInt(g, "thread_sort_index", pid, tid, sortIndex);
        }

        @Override
        public void slice(TraceContent.Slice s) throws IOException {
            Task task = s.task();
            int id = s.taskId();
            long start = s.startNs();
            long dur = s.endNs() - start;
            g.writeStartObject();
            g.writeStringField("name", task.name());
            g.writeStringField("cat", task.category());
            g.writeStringField("ph", "X");
            g.writeFieldName("ts");
            g.writeNumber(micros(start));
            g.writeFieldName("dur");
            g.writeNumber(micros(dur));
            g.writeNumberField("pid", s.pid());
            g.writeNumberField("tid", s.tid());
            g.writeObjectFieldStart("args");
            g.writeNumberField("task", id);
            if (task.work() instanceof Work.Compute c) {
                g.writeNumberField("flops", c.flops());
                if (c.ops() != null) {
                    writeOps(g, c.ops(), dur);
                }
                double lost = timeline.interferenceNs(id);
                if (lost >= 1) {
                    // stretched by communication kernels beside it: by how much, and the time lost
                    g.writeNumberField("slowdown by communication", Math.round(dur / (dur - lost) * 1000) / 1000.0);
                    g.writeNumberField("lost to communication (us)", Math.round(lost / 10.0) / 100.0);
                }
            } else if (task.work() instanceof Work.Communication comm) {
                g.writeNumberField("bytes", comm.bytes());
            }
            g.writeEndObject();
            g.writeEndObject();
            if (s.flow() != TraceContent.FlowEnd.NONE) {
                boolean sender = s.flow() == TraceContent.FlowEnd.SENDER;
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
                g.writeNumberField("pid", s.pid());
                g.writeNumberField("tid", s.tid());
                g.writeEndObject();
            }
        }

        @Override
        public void counter(int pid, int track, String name, String unit, long atNs, double value)
                throws IOException {
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeStringField("ph", "C");
            g.writeFieldName("ts");
            g.writeNumber(micros(atNs));
            g.writeNumberField("pid", pid);
            g.writeNumberField("tid", 0);
            g.writeObjectFieldStart("args");
            g.writeNumberField(unit, value);
            g.writeEndObject();
            g.writeEndObject();
        }

        @Override
        public void marker(Marker m) throws IOException {
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
