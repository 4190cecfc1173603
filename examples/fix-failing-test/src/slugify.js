/**
 * Turns a title into a URL slug: lowercase ASCII letters and digits joined by single dashes.
 * @param {string} title
 * @returns {string}
 */
export function slugify(title) {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
}
