package org.clustersim.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import picocli.CommandLine;

/** The version of this build, from a resource Maven fills in. */
public final class Version implements CommandLine.IVersionProvider {
    /** The version string, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String current() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("/clustersim-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
        return new String[] {"clustersim " + current(), "Java " + System.getProperty("java.version")};
    }
}
