package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report in a real browser: headless Chromium (the Debian package; .ci/run installs
 * it) loads the page from disk, and the test reads back the rendered DOM: no script error and
 * no console message, every chart laid out with visible marks (the page's own check, which
 * measures each mark's rendered box), and a screenshot that is not blank. Without Chromium on
 * the PATH the test is skipped with a message, printed on the console as a warning as well as
 * kept in Surefire's report (.ci/run installs Chromium where it can), except where
 * CLUSTERSIM_REQUIRE_BROWSER is set (release checks), where it fails.
 */
class ReportBrowserTest {
    @TempDir
    Path dir;

    static Path chromium() {
        for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
            for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                Path exe = Path.of(p, name);
                if (Files.isExecutable(exe)) {
                    return exe;
                }
            }
        }
        return null;
    }

    private record Page(String dom, String log) {
    }

    @Test
    void aBrowserShowsEveryChartFilledWithoutErrors() throws Exception {
        Path browser = chromium();
        if (browser == null) {
            if (System.getenv("CLUSTERSIM_REQUIRE_BROWSER") != null) {
                fail("CLUSTERSIM_REQUIRE_BROWSER is set but no chromium is on the PATH (apt-get install chromium)");
            }
            String reason = "no chromium on the PATH: the browser test of the HTML report is skipped "
                    + "(apt-get install chromium to run it)";
            // Surefire writes an aborted test's reason only into its XML report: say it on the console too
            System.err.println("WARNING: ReportBrowserTest: " + reason);
            System.err.flush();
            Assumptions.abort(reason);
        }
        Path html = dir.resolve("report.html");
        ClusterSimTest.Result r = ClusterSimTest.cli("report", ReportFiguresTest.SCENARIO.toString(), "-o",
                html.toString());
        assertEquals(0, r.code(), r.err());

        Page page = load(browser, html, "--dump-dom");
        Matcher errors = Pattern.compile("<html[^>]*data-errors=\"([^\"]*)\"").matcher(page.dom());
        assertFalse(errors.find(), () -> "script errors: " + errors.group(1));
        assertFalse(page.log().contains("CONSOLE"), "console messages: " + page.log());
        Matcher filled = Pattern.compile("<body data-filled=\"(\\d+)\" data-empty=\"([^\"]*)\"").matcher(page.dom());
        assertTrue(filled.find(), "the page's check ran: " + page.dom().substring(0, Math.min(600, page.dom().length())));
        assertEquals("4", filled.group(1), "charts with visible marks; empty: " + filled.group(2));
        Matcher marks = Pattern.compile("id=\"([a-z-]+)\" data-chart=\"[a-z-]+\"[^>]*data-marks=\"(\\d+)\"")
                .matcher(page.dom());
        List<String> charts = new ArrayList<>();
        while (marks.find()) {
            charts.add(marks.group(1));
            assertTrue(Integer.parseInt(marks.group(2)) > 0, marks.group(1) + " drew nothing");
        }
        assertEquals(List.of("step-breakdown", "pipeline", "memory", "links"), charts);

        Path shot = dir.resolve("shot.png");
        load(browser, html, "--screenshot=" + shot, "--window-size=1280,2600", "--hide-scrollbars");
        BufferedImage img = ImageIO.read(shot.toFile());
        assertTrue(img != null && img.getWidth() >= 1000, "a screenshot");
        double sum = 0;
        double sq = 0;
        long n = 0;
        long white = 0;
        for (int y = 0; y < img.getHeight(); y += 3) {
            for (int x = 0; x < img.getWidth(); x += 3) {
                int rgb = img.getRGB(x, y);
                double lum = 0.299 * (rgb >> 16 & 255) + 0.587 * (rgb >> 8 & 255) + 0.114 * (rgb & 255);
                sum += lum;
                sq += lum * lum;
                n++;
                white += (rgb & 0xffffff) == 0xffffff ? 1 : 0;
            }
        }
        double sd = Math.sqrt(sq / n - (sum / n) * (sum / n));
        assertTrue(sd > 20, "the screenshot varies (luminance s.d. " + sd + ")");
        assertTrue(white < 0.97 * n, "the screenshot is not blank: " + white + " of " + n + " samples white");
    }

    /** Runs headless Chromium on the file with its own profile; returns stdout and the log. */
    private Page load(Path browser, Path html, String... what) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(browser.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=" + dir.resolve("profile"), "--virtual-time-budget=5000"));
        cmd.addAll(List.of(what));
        cmd.add(html.toUri().toString());
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("chromium did not finish within 90 s: " + Files.readString(err));
        }
        assertEquals(0, p.exitValue(), "chromium failed: " + Files.readString(err));
        return new Page(Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
