export { slugify } from "./slugify.js"
export { truncateWords } from "./truncate.js"
