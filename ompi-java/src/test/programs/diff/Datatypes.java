package diff;

import mpi.Datatype;
import mpi.MPI;

/** Sizes, bounds and extents of every predefined and derived datatype; dup, names, attributes, free. */
final class Datatypes {
    private Datatypes() {}

    static String geometry(Datatype t) throws Exception {
        return "size " + t.getSize() + " lb " + t.getLb() + " extent " + t.getExtent() + " trueLb " + t.getTrueLb()
                + " trueExtent " + t.getTrueExtent();
    }

    static Datatype[] predefined() {
        return new Datatype[] {MPI.BYTE, MPI.CHAR, MPI.SHORT, MPI.BOOLEAN, MPI.INT, MPI.LONG, MPI.FLOAT, MPI.DOUBLE,
            MPI.PACKED, MPI.FLOAT_COMPLEX, MPI.DOUBLE_COMPLEX, MPI.INT2, MPI.SHORT_INT, MPI.LONG_INT, MPI.FLOAT_INT,
            MPI.DOUBLE_INT};
    }

    static final String[] NAMES = {"BYTE", "CHAR", "SHORT", "BOOLEAN", "INT", "LONG", "FLOAT", "DOUBLE", "PACKED",
        "FLOAT_COMPLEX", "DOUBLE_COMPLEX", "INT2", "SHORT_INT", "LONG_INT", "FLOAT_INT", "DOUBLE_INT"};

    static void run() throws Exception {
        Out.section("predefined datatypes");
        Datatype[] types = predefined();
        for (int i = 0; i < types.length; i++) {
            Out.p(NAMES[i] + " " + geometry(types[i]) + " null " + types[i].isNull());
        }
        Out.section("derived datatypes");
        Datatype[] derived = {
            Datatype.createContiguous(3, MPI.DOUBLE),
            Datatype.createContiguous(0, MPI.INT),
            Datatype.createVector(3, 2, 4, MPI.INT),
            Datatype.createVector(2, 1, -3, MPI.SHORT),
            Datatype.createHVector(3, 1, 12, MPI.INT),
            Datatype.createIndexed(new int[] {1, 2, 3}, new int[] {0, 3, 8}, MPI.LONG),
            Datatype.createHIndexed(new int[] {2, 1}, new int[] {4, 20}, MPI.FLOAT),
            Datatype.createStruct(new int[] {1, 2, 1}, new int[] {0, 4, 16}, new Datatype[] {MPI.INT, MPI.FLOAT,
                MPI.DOUBLE}),
            Datatype.createResized(MPI.INT, -4, 12),
            Datatype.createResized(Datatype.createVector(2, 1, 2, MPI.DOUBLE), 0, 8),
            Datatype.createContiguous(2, Datatype.createVector(2, 1, 3, MPI.CHAR)),
            Datatype.createVector(2, 1, 2, MPI.INT2),
        };
        String[] names = {"contiguous(3,DOUBLE)", "contiguous(0,INT)", "vector(3,2,4,INT)", "vector(2,1,-3,SHORT)",
            "hvector(3,1,12,INT)", "indexed(LONG)", "hindexed(FLOAT)", "struct(INT,FLOAT,DOUBLE)",
            "resized(INT,-4,12)", "resized(vector)", "contiguous(vector(CHAR))", "vector(INT2)"};
        for (int i = 0; i < derived.length; i++) {
            Out.p(names[i] + " before commit " + geometry(derived[i]));
            derived[i].commit();
            Out.p(names[i] + " committed " + geometry(derived[i]) + " null " + derived[i].isNull());
            Datatype dup = derived[i].dup();
            Out.p(names[i] + " dup " + geometry(dup));
            dup.free();
            Out.p(names[i] + " dup freed null " + dup.isNull());
        }
        Datatype named = Datatype.createContiguous(2, MPI.INT);
        named.setName("pair of ints");
        Out.p("name " + named.getName());
        Datatype cl = named.clone();
        Out.p("clone " + geometry(cl) + " same object " + (cl == named));
        Out.section("datatype attributes");
        int key = Datatype.createKeyval();
        named.setAttr(key, "hello");
        Out.p("attr " + named.getAttr(key));
        Datatype copy = named.dup();
        Out.p("attr copied by dup " + copy.getAttr(key));
        named.deleteAttr(key);
        Out.p("attr after delete " + named.getAttr(key) + " copy keeps " + copy.getAttr(key));
        Datatype.freeKeyval(key);
        copy.free();
        named.free();
        for (Datatype d : derived) {
            d.free();
        }
        Out.p("freed null " + named.isNull() + " " + derived[0].isNull());
    }
}
