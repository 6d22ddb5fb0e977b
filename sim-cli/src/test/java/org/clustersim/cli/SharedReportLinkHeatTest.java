package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-cluster report's link heat map coloured by job (issue 35, item 4), read from the
 * written HTML: two jobs on servers of their own under a 8:1 oversubscribed fat-tree, so a link of
 * a job's server carries that job's colour and some leaf-spine link carries both jobs' flows and is
 * marked shared, with each job's share of its bytes.
 */
class SharedReportLinkHeatTest {
    /** A row's swatch: its fill and its hover text, "link: words" (link names hold "->"). */
    private static final Pattern SWATCH = Pattern.compile("<rect [^>]*width=\"8\" height=\"8\" fill=\"(#[0-9a-f]{6})\">"
            + "<title>([^<:]*-&gt;[^<:]*): ([^<]*)</title>");
    private static final Pattern SERVER = Pattern.compile("node(\\d+)\\.");
    private static final Pattern SHARE = Pattern.compile("shared by a (\\d+)%, b (\\d+)% of its bytes");
    private static final String A = "#4e79a7";
    private static final String B = "#f28e2b";
    private static final String SHARED = "#333333";

    @TempDir
    Path dir;

    private static String job(String name, String servers) {
        return SharedClusterCommandTest.job(name, "{servers: \"" + servers + "\"}");
    }

    @Test
    void aLinkOfOneJobHasItsColourAndALinkBothJobsCrossIsMarkedShared() throws Exception {
        Path f = dir.resolve("shared.yaml");
        Files.writeString(f, "cluster: {preset: dgx-h100, nodes: 64, fabric: fat-tree, oversubscription: 8}\n"
                + "network: {fidelity: flow}\njobs:\n" + job("a", "0,32") + job("b", "1,33"));
        Path report = dir.resolve("r.html");
        ClusterSimTest.Result r = ClusterSimTest.cli("run", f.toString(), "--no-trace", "--report", report.toString());
        assertEquals(0, r.code(), r.err());
        String html = Files.readString(report);
        assertTrue(html.contains("<title>a</title>") && html.contains("<title>b</title>")
                && html.contains("<title>shared</title>"), "a legend of the jobs' colours");
        Matcher m = SWATCH.matcher(html);
        int ofServer = 0;
        int ofA = 0;
        int ofB = 0;
        int shared = 0;
        while (m.find()) {
            String fill = m.group(1);
            String link = m.group(2);
            String words = m.group(3);
            // a server's own links carry only the flows of the job placed on it
            Matcher server = SERVER.matcher(link);
            if (server.find()) {
                int n = Integer.parseInt(server.group(1));
                boolean a = n == 0 || n == 32;
                assertTrue(a || n == 1 || n == 33, link);
                assertEquals(a ? A : B, fill, link + ": " + words);
                assertEquals(a ? "job a only" : "job b only", words, link);
                ofServer++;
            }
            ofA += fill.equals(A) ? 1 : 0;
            ofB += fill.equals(B) ? 1 : 0;
            Matcher share = SHARE.matcher(words);
            if (share.matches()) {
                assertEquals(SHARED, fill, link + ": " + words);
                assertTrue(link.startsWith("leaf") || link.startsWith("spine"), link + " is a fabric link");
                int sum = Integer.parseInt(share.group(1)) + Integer.parseInt(share.group(2));
                assertTrue(sum >= 99 && sum <= 101, words);
                shared++;
            } else {
                assertTrue(!fill.equals(SHARED), link + ": " + words);
            }
        }
        assertTrue(ofServer > 0, "links of the jobs' servers among the busiest");
        assertTrue(ofA > 0 && ofB > 0, "links of one job in each job's colour");
        assertTrue(shared > 0, "a leaf-spine link both jobs cross");
        Path again = dir.resolve("r2.html");
        assertEquals(0, ClusterSimTest.cli("run", f.toString(), "--no-trace", "--report", again.toString()).code());
        assertEquals(html, Files.readString(again), "the same report from the same file");
    }
}
