package org.troika.launcher.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.Requires;

/**
 * Renders a timeline's HTML page in a real headless Chromium (Debian's {@code chromium}, offline, fresh profile) and
 * checks the screenshot: the host rows, generation bands in their colours, the failure, hang and blacklist marks at
 * the places {@link TimelineHtml.Layout} puts them.
 */
class TimelineHtmlChromiumTest {
    @TempDir
    Path tmp;

    @Test
    void chromiumShowsRowsBandsAndMarks() throws Exception {
        Path chromium = Requires.command("chromium");
        Timeline t = TimelineTests.sample();
        Path html = tmp.resolve("timeline.html");
        Files.writeString(html, TimelineHtml.render(t));
        TimelineHtml.Layout l = TimelineHtml.Layout.of(t);
        Path png = tmp.resolve("shot.png");
        List<String> argv = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--user-data-dir=" + tmp.resolve("profile"),
                "--window-size=" + l.width() + "," + l.height(), "--screenshot=" + png, html.toUri().toString()));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(tmp.resolve("log").toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish: " + Files.readString(tmp.resolve("log")));
        }
        assertTrue(Files.exists(png), Files.readString(tmp.resolve("log")));
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(l.width(), img.getWidth());
        // rows: launcher, n1, n2, n3 (alternating backgrounds in the label column)
        assertEquals(List.of("launcher", "host n1", "host n2", "host n3"), TimelineJson.rows(t));
        for (int row = 0; row < 4; row++) {
            assertColor(img, 150, mid(l, row), row % 2 == 0 ? 0xf5f5f5 : 0xebebeb, "row " + row + " background");
            assertTrue(hasDarkPixel(img, 8, 120, l.rowTop(row) + 4, l.rowTop(row) + l.rowHeight() - 4),
                    "row " + row + " has its label drawn");
        }
        // generation bands: generation 1 on n1 and n2, generation 2 on n1 and n3, each in its colour
        int gen1 = rgb(TimelineHtml.GENERATION_COLORS.get(0));
        int gen2 = rgb(TimelineHtml.GENERATION_COLORS.get(1));
        assertColor(img, (int) l.x(2_500_000), mid(l, 1) + 8, gen1, "generation 1 on n1");
        assertColor(img, (int) l.x(2_500_000), mid(l, 2), gen1, "generation 1 on n2");
        assertColor(img, (int) l.x(7_000_000), mid(l, 1) + 8, gen2, "generation 2 on n1");
        assertColor(img, (int) l.x(7_000_000), mid(l, 3), gen2, "generation 2 on n3");
        assertColor(img, (int) l.x(7_000_000), mid(l, 2), 0xebebeb, "n2 has no band in generation 2");
        // marks: the failure on n2, its blacklisting, the hang on n3, a commit tick on n1
        assertColor(img, (int) Math.round(l.x(5_000_000)), mid(l, 2), rgb(Timeline.Kind.FAILURE.color()), "failure");
        assertColor(img, (int) Math.round(l.x(5_100_000)), mid(l, 2), rgb(Timeline.Kind.BLACKLIST.color()), "blacklist");
        assertColor(img, (int) Math.round(l.x(9_000_000)), mid(l, 3), rgb(Timeline.Kind.HANG.color()), "hang");
        assertColor(img, (int) Math.round(l.x(1_000_000)), l.rowTop(1) + l.rowHeight() - 6,
                rgb(Timeline.Kind.COMMIT.color()), "commit tick");
        Files.copy(png, Path.of("target", "timeline-chromium.png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static boolean hasDarkPixel(BufferedImage img, int x0, int x1, int y0, int y1) {
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                int c = img.getRGB(x, y);
                if (((c >> 16) & 0xff) + ((c >> 8) & 0xff) + (c & 0xff) < 200) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int mid(TimelineHtml.Layout l, int row) {
        return l.rowTop(row) + l.rowHeight() / 2;
    }

    private static int rgb(String css) {
        return Integer.parseInt(css.substring(1), 16);
    }

    private static void assertColor(BufferedImage img, int x, int y, int want, String what) {
        int got = img.getRGB(x, y) & 0xffffff;
        for (int shift = 0; shift <= 16; shift += 8) {
            int d = Math.abs(((got >> shift) & 0xff) - ((want >> shift) & 0xff));
            assertTrue(d <= 12, what + " at (" + x + "," + y + "): expected #" + Integer.toHexString(want) + ", got #"
                    + Integer.toHexString(got));
        }
    }
}
