package org.troika.launcher.mpi;

import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;

class FlavorDetectorTest {
    /** This machine (Debian 12, openmpi-bin 4.1.4). */
    static final String OPEN_MPI_4 = "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n";
    /** Debian/conda wrapper form (REFERENCE §2.1, horovod#1690). */
    static final String OPENRTE_WRAPPER = "mpirun.real (OpenRTE) 4.0.3\n\nReport bugs to http://www.open-mpi.org/community/help/\n";
    static final String OPEN_MPI_5 = "mpirun (Open MPI) 5.0.3\n\nReport bugs to https://www.open-mpi.org/community/help/\n";
    /** Spectrum prints its own name; some builds also mention Open MPI (REFERENCE §2.1). */
    static final String SPECTRUM = "mpirun (IBM Spectrum MPI) 10.4.0.3\n\nReport bugs to http://www.open-mpi.org/community/help/\n";
    static final String SPECTRUM_WITH_OPEN_MPI = "mpirun (Open MPI) 10.3.1.2\n\nIBM Spectrum MPI 10.3.1.2\n";
    /** This machine's `mpirun.mpich --version` (MPICH 4.0.2, Debian), trimmed after the first lines. */
    static final String MPICH_4 = "HYDRA build details:\n"
            + "    Version:                                 4.0.2\n"
            + "    Release Date:                            Thu Apr  7 12:34:45 CDT 2022\n"
            + "    CC:                              gcc -Wdate-time -D_FORTIFY_SOURCE=2 -g -O2\n"
            + "    Process Manager:                         pmi\n"
            + "    Launchers available:                     ssh rsh fork slurm ll lsf sge manual persist\n";
    static final String INTEL = "Intel(R) MPI Library for Linux* OS, Version 2021.6 Build 20220227 (id: 28877f3f32)\n"
            + "Copyright 2003-2022, Intel Corporation.\n";

    static Stream<Arguments> versionTexts() {
        return Stream.of(
                Arguments.of(OPEN_MPI_4, MpiFlavor.OPEN_MPI, 4, false),
                Arguments.of(OPENRTE_WRAPPER, MpiFlavor.OPEN_MPI, 4, false),
                Arguments.of(OPEN_MPI_5, MpiFlavor.OPEN_MPI, 5, true),
                Arguments.of(SPECTRUM, MpiFlavor.SPECTRUM_MPI, 10, false),
                Arguments.of(SPECTRUM_WITH_OPEN_MPI, MpiFlavor.SPECTRUM_MPI, 10, false),
                Arguments.of(MPICH_4, MpiFlavor.MPICH, 4, false),
                Arguments.of(INTEL, MpiFlavor.INTEL_MPI, 2021, false));
    }

    @ParameterizedTest
    @MethodSource("versionTexts")
    void classifiesRecordedVersionTexts(String text, MpiFlavor flavor, int major, boolean prrte) {
        MpiInstall mpi = FlavorDetector.detect((argv, timeout) -> new ProbeResult(0, text), "mpirun");
        assertEquals(flavor, mpi.flavor());
        assertEquals(major, mpi.majorVersion());
        assertEquals(prrte, mpi.usesPrrte());
        assertEquals(text.strip(), mpi.versionText());
    }

    @Test
    void runsMpirunVersionOnceWithATimeout() {
        List<List<String>> calls = new ArrayList<>();
        List<Duration> timeouts = new ArrayList<>();
        CommandRunner runner = (argv, timeout) -> {
            calls.add(argv);
            timeouts.add(timeout);
            return new ProbeResult(0, OPEN_MPI_4);
        };
        FlavorDetector.detect(runner, "/usr/bin/mpirun.openmpi");
        assertEquals(List.of(List.of("/usr/bin/mpirun.openmpi", "--version")), calls);
        assertEquals(List.of(Duration.ofSeconds(10)), timeouts);
    }

    @Test
    void missingMpirunSaysHowToInstall() {
        UsageException e = assertThrows(UsageException.class, () -> FlavorDetector.detect(
                (argv, t) -> new ProbeResult(ProbeResult.NOT_FOUND, ""), "mpirun"));
        assertTrue(e.getMessage().contains("apt-get install openmpi-bin libopenmpi-dev"), e.getMessage());
        assertTrue(e.getMessage().contains("TROIKA_MPIRUN"), e.getMessage());
        assertOneLine(e);
    }

    @Test
    void failingVersionProbeShowsOutputAndOverride() {
        UsageException e = assertThrows(UsageException.class, () -> FlavorDetector.detect(
                (argv, t) -> new ProbeResult(1, "\nmpirun: unrecognized option '--version'\nmore\n"), "mpirun"));
        assertTrue(e.getMessage().contains("unrecognized option '--version'"), e.getMessage());
        assertTrue(e.getMessage().contains("--mpi-flavor"), e.getMessage());
        assertOneLine(e);
    }

    @Test
    void unknownTextIsEchoed() {
        UsageException e = assertThrows(UsageException.class, () -> FlavorDetector.detect(
                (argv, t) -> new ProbeResult(0, "mpiexec (FancyMPI) 1.2\nsecond line\n"), "mpirun"));
        assertTrue(e.getMessage().contains("'mpiexec (FancyMPI) 1.2'"), e.getMessage());
        assertFalse(e.getMessage().contains("second line"));
        assertOneLine(e);
    }

    @Test
    void classifyReturnsNullForUnknownText() {
        assertNull(FlavorDetector.classify("prte (PRRTE) 3.0.5"));
        assertNull(FlavorDetector.classify(""));
    }

    @Test
    void flavorNamesMapToInstalls() {
        assertEquals(new MpiInstall(MpiFlavor.OPEN_MPI, 4, ""), FlavorDetector.forFlavorName("openmpi"));
        assertEquals(new MpiInstall(MpiFlavor.OPEN_MPI, 5, ""), FlavorDetector.forFlavorName("OpenMPI5"));
        assertTrue(FlavorDetector.forFlavorName("openmpi5").usesPrrte());
        assertEquals(MpiFlavor.SPECTRUM_MPI, FlavorDetector.forFlavorName("spectrum").flavor());
        assertEquals(MpiFlavor.MPICH, FlavorDetector.forFlavorName("mpich").flavor());
        assertEquals(MpiFlavor.INTEL_MPI, FlavorDetector.forFlavorName(" intel ").flavor());
    }

    @Test
    void unknownFlavorNameListsChoices() {
        UsageException e = assertThrows(UsageException.class, () -> FlavorDetector.forFlavorName("mvapich"));
        assertTrue(e.getMessage().contains("openmpi, openmpi5, spectrum, mpich, intel"), e.getMessage());
        assertOneLine(e);
    }

    @Test
    void mpirunCommandHonoursTroikaMpirun() {
        assertEquals("mpirun", FlavorDetector.mpirunCommand(Map.of()));
        assertEquals("mpirun", FlavorDetector.mpirunCommand(Map.of("TROIKA_MPIRUN", "  ")));
        assertEquals("/usr/bin/mpirun.mpich", FlavorDetector.mpirunCommand(Map.of("TROIKA_MPIRUN", "/usr/bin/mpirun.mpich")));
    }

    static void assertOneLine(Exception e) {
        assertFalse(e.getMessage().contains("\n"), "one-line message expected: " + e.getMessage());
    }
}
