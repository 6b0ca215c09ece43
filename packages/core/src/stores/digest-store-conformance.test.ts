import { usePgliteRepository } from "../../../db/test/conformance/pglite-repository";
import { describeDigestStoreConformance } from "../../test/conformance/digest-store-conformance";
import { createInMemoryDigestStore } from "./in-memory-digest-store";

const storage = usePgliteRepository();

// One spec, both stores: the in-memory store must behave as the repository does.
const inMemory = createInMemoryDigestStore();
describeDigestStoreConformance("the in-memory store", () => inMemory);
describeDigestStoreConformance("the storage package's repository (PGlite)", () => storage.repository);
