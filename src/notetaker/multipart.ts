import { Readable } from "node:stream";
import { FormDataEncoder } from "form-data-encoder";
import { type File, FormData } from "formdata-node";

export { File, FormData } from "formdata-node";
export { fileFromPath } from "formdata-node/file-from-path";

/** A multipart body ready for `undici.request`: headers with a known length, a stream body. */
export interface MultipartBody {
  headers: Record<string, string>;
  body: Readable;
}

/**
 * Encodes a form as a streamed `multipart/form-data` body. Files made by `fileFromPath` are
 * read from disk chunk by chunk while the request is sent, and the encoder knows every part's
 * size in advance, so the request has a `Content-Length` and the recording is never held in
 * memory (undici's own FormData with `fs.openAsBlob` buffered a whole 300 MB file here).
 */
export function encodeMultipart(form: FormData): MultipartBody {
  const encoder = new FormDataEncoder(form);
  return {
    headers: {
      "content-type": encoder.contentType,
      ...(encoder.contentLength === undefined ? {} : { "content-length": encoder.contentLength }),
    },
    body: Readable.from(encoder.encode()),
  };
}

/** Builds a form from fields, skipping the ones that are undefined. */
export function buildForm(fields: Record<string, string | File | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) form.set(name, value);
  }
  return form;
}
