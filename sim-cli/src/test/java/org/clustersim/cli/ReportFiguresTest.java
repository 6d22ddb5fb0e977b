package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import org.clustersim.cli.output.RunSummary;
import org.clustersim.cli.report.Chart;
import org.clustersim.cli.report.HeatMap;
import org.clustersim.cli.report.HtmlReport;
import org.clustersim.cli.report.LineChart;
import org.clustersim.cli.report.LinkHeat;
import org.clustersim.cli.report.MemoryOverTime;
import org.clustersim.cli.report.PipelineOverview;
import org.clustersim.cli.report.PlotFiles;
import org.clustersim.cli.report.Report;
import org.clustersim.cli.report.RunData;
import org.clustersim.cli.report.RunPage;
import org.clustersim.cli.report.StackedBars;
import org.clustersim.cli.report.TimelineChart;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.topology.Link;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The report's figures against the simulated run they are drawn from: pipeline bars are the
 * microbatch passes of the timeline, step bars add up to the step, memory lines peak where
 * the measured peak is, and heat-map cells add up to the bytes each link carried.
 */
class ReportFiguresTest {
    static final Path SCENARIO = Path.of("src", "test", "resources", "report-small.yaml");
    private static RunData data;

    @BeforeAll
    static void simulate() {
        Scenario s = new ScenarioReader().read(SCENARIO);
        RunCommand.Simulated sim = RunCommand.simulate(s, false, true);
        data = RunData.of(s, sim.step(), sim.run(), sim.summary());
    }

    @Test
    void pipelineBarsCoverEachMicrobatchPassOfEachRankAndNothingElse() {
        TimelineChart chart = PipelineOverview.chart(data, "");
        Timeline timeline = data.run().timeline();
        TaskGraph graph = timeline.graph();
        Pattern pass = Pattern.compile("^(F|B) mb(\\d+) ");
        Pattern tip = Pattern.compile("^rank \\d+: (forward|backward) of microbatch (\\d+) ");
        assertEquals(4, chart.lanes().size());
        for (int p = 0; p < 4; p++) {
            int device = data.step().device(0, 0, p, 0);
            Map<String, List<long[]>> tasks = new TreeMap<>();
            for (int i = 0; i < graph.deviceStreamCount(device); i++) {
                int s = graph.deviceStream(device, i);
                for (int k = 0; graph.isComputeStream(s) && k < graph.streamLength(s); k++) {
                    int t = graph.streamTask(s, k);
                    Matcher m = pass.matcher(graph.name(t));
                    if (m.find()) {
                        tasks.computeIfAbsent(m.group(1) + m.group(2), x -> new ArrayList<>())
                                .add(new long[] {timeline.start(t), timeline.end(t)});
                    }
                }
            }
            assertEquals(2 * data.scenario().microbatches(), tasks.size(), "a forward and a backward per microbatch");
            Map<String, List<TimelineChart.Bar>> bars = new TreeMap<>();
            for (TimelineChart.Bar b : chart.lanes().get(p).bars()) {
                Matcher m = tip.matcher(b.tip());
                if (m.find()) {
                    bars.computeIfAbsent(m.group(1).substring(0, 1).toUpperCase() + m.group(2),
                            x -> new ArrayList<>()).add(b);
                }
            }
            assertEquals(tasks.keySet(), bars.keySet(), "rank " + p);
            for (Map.Entry<String, List<long[]>> e : tasks.entrySet()) {
                List<TimelineChart.Bar> drawn = bars.get(e.getKey());
                Set<Long> starts = new HashSet<>();
                Set<Long> ends = new HashSet<>();
                for (long[] t : e.getValue()) {
                    starts.add(t[0]);
                    ends.add(t[1]);
                    assertTrue(drawn.stream().anyMatch(b -> b.startNs() <= t[0] && t[1] <= b.endNs()),
                            "rank " + p + " " + e.getKey() + ": task " + t[0] + "-" + t[1] + " drawn");
                }
                for (TimelineChart.Bar b : drawn) {
                    assertTrue(starts.contains(b.startNs()) && ends.contains(b.endNs()),
                            "rank " + p + " " + e.getKey() + ": bar " + b + " starts and ends with its tasks");
                }
            }
        }
        assertEquals(timeline.makespan(), chart.endNs());
    }

    @Test
    void eachRanksBarAddsUpToTheStepAndItsExposedPartsToTheExposedTime() {
        StackedBars chart = org.clustersim.cli.report.StepBreakdown.chart(data, "");
        assertEquals(4, chart.rows().size());
        RunSummary r = data.summary();
        for (int p = 0; p < 4; p++) {
            StackedBars.Row row = chart.rows().get(p);
            double total = row.segments().stream().mapToDouble(StackedBars.Segment::value).sum();
            assertEquals(r.stepTimeNs(), total, 2, row.label());
            int device = data.step().device(0, 0, p, 0);
            RunSummary.Device d = r.devices().stream().filter(x -> x.device() == device).findFirst().orElseThrow();
            double exposed = row.segments().stream().filter(s -> s.tip().startsWith("exposed"))
                    .mapToDouble(StackedBars.Segment::value).sum();
            assertEquals(d.exposedCommNs(), exposed, 1, row.label());
            assertEquals(d.pipelineBubbleNs(), part(row, "pipeline bubble"), 0, row.label());
            assertEquals(d.otherWaitNs(), part(row, "other waits"), 0, row.label());
            assertTrue(row.segments().get(0).value() > 0, "compute: " + row);
            assertTrue(d.pipelineBubbleNs() > 0, "a 1F1B pipeline has a bubble: " + row);
        }
    }

    /** The value of the bar's segment whose hover text starts with {@code what}. */
    private static double part(StackedBars.Row row, String what) {
        return row.segments().stream().filter(s -> s.tip().startsWith(what)).mapToDouble(StackedBars.Segment::value)
                .sum();
    }

    @Test
    void theReportsIdleSplitIsTheSummarysAndAddsUpToTheIdleTime() {
        java.io.StringWriter text = new java.io.StringWriter();
        org.clustersim.cli.output.SummaryText.print(new java.io.PrintWriter(text), data.scenario(), data.summary(),
                null, null, null, 0);
        Matcher line = Pattern.compile("idle \\(mean\\) +([0-9.]+%) of the step: pipeline bubble ([0-9.]+%), "
                + "exposed communication ([0-9.]+%), other waits ([0-9.]+%)").matcher(text.toString());
        assertTrue(line.find(), text.toString());
        Map<String, String> table = new TreeMap<>();
        RunPage.summary(data, "").rows().forEach(r -> table.put(r.get(0), r.get(1)));
        assertEquals(line.group(1), table.get("idle (mean over GPUs)"));
        assertEquals(line.group(2), table.get("pipeline bubble"));
        assertEquals(line.group(3), table.get("exposed communication"));
        assertEquals(line.group(4), table.get("other waits"));
        RunSummary r = data.summary();
        assertEquals(r.idleFraction(), r.pipelineBubbleFraction() + r.exposedCommFraction() + r.otherWaitFraction(),
                1e-12);
        assertTrue(r.pipelineBubbleFraction() > 0 && r.exposedCommFraction() > 0, text.toString());
    }

    @Test
    void memoryLinesPeakAtEachStagesMeasuredPeakAndEndWithTheRun() {
        LineChart chart = MemoryOverTime.chart(data, "");
        assertEquals(4, chart.series().size());
        for (int p = 0; p < 4; p++) {
            LineChart.Series s = chart.series().get(p);
            int device = data.step().device(0, 0, p, 0);
            long peak = data.summary().devices().stream().filter(x -> x.device() == device).findFirst().orElseThrow()
                    .memory().peakBytes();
            double max = java.util.Arrays.stream(s.ys()).max().orElseThrow();
            assertEquals(peak, max, 1e-6 * peak, s.label());
            assertEquals(data.run().timeline().makespan(), s.xs()[s.xs().length - 1], 0.5);
        }
        assertEquals(data.scenario().cluster().accelerator().hbmBytes(), chart.references().get(0).value(), 0);
    }

    @Test
    void heatMapCellsAddUpToTheBytesEachLinkCarried() {
        HeatMap chart = LinkHeat.chart(data, "");
        assertTrue(chart.rows().size() > 4);
        long end = data.run().timeline().makespan();
        Set<String> classes = new HashSet<>();
        for (int r = 0; r < chart.rows().size(); r++) {
            String name = chart.rows().get(r).substring(0, chart.rows().get(r).indexOf(" ("));
            Link link = data.run().links().topology().links().stream().filter(l -> l.name().equals(name)).findFirst()
                    .orElseThrow();
            classes.add(link.kind().name());
            double bytes = 0;
            for (double u : chart.cells()[r]) {
                bytes += u * link.bandwidthBytesPerS() * (end / 1e9) / chart.cells()[r].length;
            }
            long carried = data.run().links().bytes(link.id());
            assertEquals(carried, bytes, 0.02 * carried, name);
        }
        assertTrue(classes.size() >= 3, "NVLink, GPU-NIC and NIC-switch links all shown: " + classes);
    }

    @Test
    void thePageIsSelfContainedDeterministicAndHoldsEveryChart() throws IOException {
        Report report = RunPage.report(data, "test");
        ByteArrayOutputStream a = new ByteArrayOutputStream();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        HtmlReport.write(report, a);
        HtmlReport.write(RunPage.report(data, "test"), b);
        assertTrue(java.util.Arrays.equals(a.toByteArray(), b.toByteArray()), "same run, same bytes");
        String html = a.toString(StandardCharsets.UTF_8);
        assertFalse(Pattern.compile("(src|href)=\"(https?:)?//").matcher(html).find(), "nothing fetched");
        assertFalse(html.contains("<link"), "no external style sheets");
        List<String> ids = new ArrayList<>();
        for (Chart c : report.charts()) {
            assertTrue(html.contains("data-chart=\"" + c.id() + "\""), c.id());
            assertTrue(c.marks() > 0, c.id() + " has data");
            ids.add(c.id());
        }
        assertEquals(List.of("step-breakdown", "pipeline", "memory", "links"), ids);
        assertTrue(html.contains("<table id=\"groups-table\">") && html.contains(">pp-p2p<"), "group table with traffic");
    }

    @Test
    void pngPlotsArePaintedNotBlank() throws IOException {
        for (Chart c : RunPage.report(data, "test").charts()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PlotFiles.png(c, out);
            BufferedImage img = ImageIO.read(new ByteArrayInputStream(out.toByteArray()));
            assertEquals(2 * c.width(), img.getWidth());
            Set<Integer> colours = new HashSet<>();
            long inked = 0;
            for (int y = 0; y < img.getHeight(); y += 2) {
                for (int x = 0; x < img.getWidth(); x += 2) {
                    int rgb = img.getRGB(x, y) & 0xffffff;
                    colours.add(rgb);
                    inked += rgb == 0xffffff ? 0 : 1;
                }
            }
            long samples = (long) (img.getHeight() / 2) * (img.getWidth() / 2);
            assertTrue(inked > samples / 50, c.id() + ": " + inked + " of " + samples + " pixels drawn");
            assertTrue(colours.size() > 8, c.id() + ": " + colours.size() + " colours");
        }
    }
}
