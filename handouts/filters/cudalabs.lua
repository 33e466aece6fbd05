-- cudalabs handouts: one Markdown source per lab becomes a PDF (through LaTeX), an HTML page and a
-- Jupyter notebook. This filter does everything that depends on the edition or the output:
--
--   ```{.cuda include=starter region=simple}```   the region `// handout:begin simple` ...
--                                                 `// handout:end simple` of the lab's starter,
--                                                 read at build time (include=solution: the
--                                                 reference solution; include=header: TOPIC.h)
--   ::: instructor ... :::                        only in the instructor edition
--   ::: student ... :::                           only in the student edition
--   ```{.run} make lab01 && ./lab01 ```           a shell block; in a notebook a code cell (`!cmd`)
--   ::: starter :::                               in a notebook: the whole starter as a
--                                                 %%writefile cell; elsewhere nothing
--   ::: results :::                               the measured results, generated from
--                                                 bench/results/*.json (handouts/tools/results.py)
--   ::: rubric :::                                (inside ::: instructor) the grading rubric's
--                                                 table, from grading/rubrics/NN.rubric
--                                                 (handouts/tools/rubric.py)
--
-- Metadata (set by handouts.mk with -M): lab ("01", from the handout itself), edition
-- ("student" | "instructor"), repo_url, gen_dir (where results.py wrote its fragments), python.
-- Any include that cannot be resolved stops the build with a message naming the handout, the
-- file and the region: a handout never silently loses code.

local edition = "student"
local lab = nil
local repo_url = ""
local colab_base = ""  -- handouts/colab.conf, COLAB_BASE: the links' base address (tools/colab.py)
local python = "python3"
local gen_dir = "build/handouts/gen"
local source_name = "handout"
local lab_dir, lab_file = nil, nil  -- "labs/01-vector-add", "vector_add.cu"
local notebook = FORMAT == "ipynb"

local function fail(msg)
  io.stderr:write(source_name .. ": " .. msg .. "\n")
  os.exit(3)
end

local function read_file(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

local function list_dir(pattern)
  -- Folders matching a shell glob, sorted (pandoc 2.17 has no directory listing of its own).
  local p = io.popen("ls -d " .. pattern .. " 2>/dev/null")
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end

-- The lab's folder and its student file, found the way the Makefile finds them: labs/NN-*/ and
-- the one .cu besides driver.cu.
local function resolve_lab()
  if lab_dir then return end
  local dirs = list_dir("labs/" .. lab .. "-*/")
  if #dirs == 0 then
    fail("lab " .. lab .. " has no folder labs/" .. lab .. "-*/ yet: its code excerpts cannot be "
         .. "included (write the lab first, or build only the handouts of existing labs)")
  end
  lab_dir = dirs[1]:gsub("/$", "")
  local files = {}
  for _, f in ipairs(list_dir(lab_dir .. "/*.cu")) do
    if not f:match("/driver%.cu$") then files[#files + 1] = f end
  end
  if #files ~= 1 then
    fail(lab_dir .. " must hold exactly one .cu besides driver.cu (found " .. #files .. ")")
  end
  lab_file = files[1]:match("([^/]+)$")
end

local function path_of(which)
  resolve_lab()
  if which == "starter" then return lab_dir .. "/" .. lab_file
  elseif which == "solution" then return "solutions/" .. lab_dir:match("([^/]+)$") .. "/" .. lab_file
  elseif which == "header" then return lab_dir .. "/" .. lab_file:gsub("%.cu$", ".h")
  end
  fail("include=" .. which .. " is not one of starter, solution, header")
end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- A region may come in several pieces (the same name opened and closed more than once, e.g. a
-- kernel and, further down, its launcher): the pieces are joined by a "// ..." line.
local function extract_region(path, region)
  local text = read_file(path)
  if not text then fail("cannot read " .. path) end
  if not region or region == "" then return (text:gsub("\n$", "")) end
  local pieces, cur, inside = {}, nil, false
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local t = trim(line)
    if t == "// handout:begin " .. region then
      if inside then fail(path .. ": region '" .. region .. "' opened again before its end") end
      inside, cur = true, {}
    elseif t == "// handout:end " .. region then
      if not inside then fail(path .. ": '// handout:end " .. region .. "' without its begin") end
      inside = false
      while #cur > 0 and trim(cur[1]) == "" do table.remove(cur, 1) end
      while #cur > 0 and trim(cur[#cur]) == "" do table.remove(cur) end
      if #cur > 0 then pieces[#pieces + 1] = table.concat(cur, "\n") end
    elseif inside and not t:match("^// handout:") then
      cur[#cur + 1] = line
    end
  end
  if inside then fail(path .. ": region '" .. region .. "' is never closed") end
  if #pieces == 0 then
    fail(path .. " has no region '" .. region .. "' (expected a line '// handout:begin " .. region
         .. "' and a line '// handout:end " .. region .. "')")
  end
  return table.concat(pieces, "\n\n// ...\n\n")
end

-- Code lines longer than this would run off a printed A4 page (footnotesize mono, 17 cm): in the
-- PDF they are wrapped at a space, the continuation indented (and kept a comment when the break
-- falls inside one). The HTML page scrolls instead, and a notebook keeps the file as it is.
local MAX_LINE = 100

local function wrap_line(line)
  if FORMAT ~= "latex" or utf8.len(line) == nil or utf8.len(line) <= MAX_LINE then return line end
  local indent = line:match("^(%s*)")
  local cut = nil
  for pos = MAX_LINE, #indent + 20, -1 do
    if line:sub(pos, pos) == " " then cut = pos; break end
  end
  if not cut then return line end
  local head, rest = line:sub(1, cut - 1), line:sub(cut + 1)
  local comment = head:find("//", 1, true) and "// " or ""
  return head .. "\n" .. wrap_line(indent .. "    " .. comment .. rest)
end

local function wrap_code(code)
  local out = {}
  for line in (code .. "\n"):gmatch("(.-)\n") do out[#out + 1] = wrap_line(line) end
  return table.concat(out, "\n")
end

local function include_block(el, inside_instructor)
  local which = el.attributes["include"]
  local region = el.attributes["region"]
  if which == "solution" and not inside_instructor then
    fail("a solution excerpt (region '" .. tostring(region) .. "') outside '::: instructor': it "
         .. "would reach students")
  end
  local path = path_of(which)
  local code = extract_region(path, region)
  local label = pandoc.Para({pandoc.Emph({pandoc.Str(which == "solution" and "Solution, " or ""),
                                          pandoc.Code(path),
                                          pandoc.Str(region and (", region " ) or ""),
                                          region and pandoc.Code(region) or pandoc.Str(""),
                                          pandoc.Str(":")})})
  return {label, pandoc.CodeBlock(wrap_code(code), {class = "cpp"})}
end

local function code_cell(code, role)
  return pandoc.Div({pandoc.CodeBlock(code, {class = "python"})},
                    {class = "cell code", cudalabs = role})
end

local function run_block(el)
  if not notebook then
    return pandoc.CodeBlock(el.text, {class = "sh"})
  end
  local lines = {}
  for line in (el.text .. "\n"):gmatch("(.-)\n") do
    if line:match("^%s*#") or trim(line) == "" then lines[#lines + 1] = line
    else lines[#lines + 1] = "!" .. line end
  end
  return code_cell(table.concat(lines, "\n"), el.attributes["role"] or "run")
end

local function starter_cell()
  if not notebook then return {} end
  local path = path_of("starter")
  local code = extract_region(path)
  return {
    pandoc.Para({pandoc.Str("Your file, "), pandoc.Code(path),
                 pandoc.Str(". Edit the cell below, then run it: it writes the file, and the "
                            .. "next cell builds and runs it.")}),
    code_cell("%%writefile " .. path .. "\n" .. code, "starter"),
  }
end

-- A generated fragment of gen_dir: results-NN.md (handouts/tools/results.py) or rubric-NN.md
-- (handouts/tools/rubric.py, from the grader's rubric).
local function generated_blocks(kind, tool)
  local path = gen_dir .. "/" .. kind .. "-" .. lab .. ".md"
  local text = read_file(path)
  if not text then fail("no " .. path .. ": run handouts/tools/" .. tool .. " first (make does)") end
  return pandoc.read(text, "markdown").blocks
end

-- Open in Colab (colab_base, checked by tools/colab.py in handouts.mk): a lab's link is
-- colab_base/NN-topic.ipynb. A lab handout starts with its own; the course guide's
-- ::: colab-links ::: lists every lab's, or, with no base, says how to open a notebook anyway.
local function colab_link(name)
  return pandoc.Link({pandoc.Str("Open " .. name .. ".ipynb in Colab")}, colab_base .. "/" .. name .. ".ipynb")
end

local function lab_names()
  local names = {}
  for _, d in ipairs(list_dir("labs/[0-9][0-9]-*/")) do
    names[#names + 1] = d:gsub("/$", ""):gsub("^labs/", "")
  end
  table.sort(names)
  return names
end

local function colab_lab_block()
  if colab_base == "" or not lab then return {} end
  resolve_lab()
  local name = lab_dir:gsub("^labs/", "")
  return {pandoc.Para({pandoc.Strong({pandoc.Str("Colab:")}), pandoc.Space(), colab_link(name),
                       pandoc.Str(" (then Runtime → Change runtime type → T4 GPU, and run the cells from the top).")})}
end

local function colab_links_block()
  if colab_base == "" then
    return {pandoc.Para({pandoc.Str("This course has no Open in Colab links: upload a lab's notebook "
                                    .. "to Colab instead (File → Upload notebook), as above.")})}
  end
  local items = {}
  for _, name in ipairs(lab_names()) do items[#items + 1] = {pandoc.Plain({colab_link(name)})} end
  return {pandoc.Para({pandoc.Str("Open a lab's notebook in Colab:")}), pandoc.BulletList(items)}
end

-- Walks the blocks, applying the edition and the custom elements; `instr` tells whether we are
-- inside an instructor div (solution excerpts are allowed only there).
local function transform(blocks, instr)
  local out = {}
  for _, el in ipairs(blocks) do
    local add = nil
    if el.t == "Div" and el.classes:includes("instructor") then
      if edition == "instructor" then
        local inner = transform(el.content, true)
        table.insert(inner, 1, pandoc.Para({pandoc.Strong({pandoc.Str("Instructor edition.")})}))
        add = {pandoc.HorizontalRule()}
        for _, b in ipairs(inner) do add[#add + 1] = b end
        add[#add + 1] = pandoc.HorizontalRule()
      else
        add = {}
      end
    elseif el.t == "Div" and el.classes:includes("student") then
      add = edition == "student" and transform(el.content, instr) or {}
    elseif el.t == "Div" and el.classes:includes("starter") then
      add = starter_cell()
    elseif el.t == "Div" and el.classes:includes("results") then
      add = transform(generated_blocks("results", "results.py"), instr)
    elseif el.t == "Div" and el.classes:includes("colab-links") then
      add = colab_links_block()
    elseif el.t == "Div" and el.classes:includes("rubric") then
      if not instr then fail("'::: rubric' outside '::: instructor': the rubric is for instructors") end
      add = transform(generated_blocks("rubric", "rubric.py"), instr)
    elseif el.t == "Div" and el.classes:includes("small") and FORMAT == "latex" then
      -- wide tables (recorded counters): a smaller type in print
      add = transform(el.content, instr)
      table.insert(add, 1, pandoc.RawBlock("latex", "\\begingroup\\footnotesize"))
      add[#add + 1] = pandoc.RawBlock("latex", "\\endgroup")
    elseif el.t == "Div" and el.classes:includes("notebook-only") then
      add = notebook and transform(el.content, instr) or {}
    elseif el.t == "Div" and el.classes:includes("print-only") then
      add = notebook and {} or transform(el.content, instr)
    elseif el.t == "Div" then
      el.content = transform(el.content, instr)
      add = {el}
    elseif el.t == "CodeBlock" and el.attributes["include"] then
      add = include_block(el, instr)
    elseif el.t == "CodeBlock" and el.classes:includes("run") then
      add = {run_block(el)}
    elseif el.t == "CodeBlock" then
      if el.classes:includes("cuda") then el.classes = {"cpp"} end
      el.text = wrap_code(el.text)
      add = {el}
    elseif el.t == "BulletList" or el.t == "OrderedList" then
      for i, item in ipairs(el.content) do el.content[i] = transform(item, instr) end
      add = {el}
    else
      add = {el}
    end
    for _, b in ipairs(add) do out[#out + 1] = b end
  end
  return out
end

-- The notebook's first code cell (handouts/tools/notebook_setup.py): it carries the lab's course
-- files, so the notebook runs on a fresh Colab runtime with no clone and no upload, or fetches
-- repo_url when the course hosts its repository. A form cell: Colab shows its title only.
local function setup_cells(title)
  local cmd = python .. " handouts/tools/notebook_setup.py --lab " .. lab
  if repo_url ~= "" then cmd = cmd .. " --repo-url '" .. repo_url:gsub("'", "") .. "'" end
  local p = io.popen(cmd)
  local code = p:read("a")
  if not p:close() or code == "" then fail("handouts/tools/notebook_setup.py failed: " .. cmd) end
  return {
    pandoc.Header(1, title),
    pandoc.Para({pandoc.Str("This notebook runs on Colab with a GPU (Runtime → Change runtime type "
                            .. "→ a GPU such as T4) or on any Jupyter server with a CUDA GPU and the "
                            .. "CUDA Toolkit. Run the cells from top to bottom: the first one writes "
                            .. "the course files the lab needs and checks the GPU; your file is the "
                            .. "%%writefile cell further down: edit it there.")}),
    pandoc.Div({pandoc.CodeBlock(code:gsub("\n$", ""), {class = "python"})},
               {class = "cell code", cudalabs = "setup", cellView = "form",
                jupyter = '{"source_hidden": true}'}),
  }
end

-- The notebook's last cell (handouts/tools/scorecard_cell.py, through notebook_setup.py): the
-- student's run drawn as a scorecard inline (tools/scorecard.py); without a GPU, a reference run.
local function scorecard_cells()
  local cmd = python .. " handouts/tools/notebook_setup.py --lab " .. lab .. " --scorecard-cell"
  local p = io.popen(cmd)
  local code = p:read("a")
  if not p:close() or code == "" then fail("handouts/tools/notebook_setup.py failed: " .. cmd) end
  return {
    pandoc.Header(1, "Your scorecard"),
    pandoc.Para({pandoc.Str("When your kernels pass, run the cell below: it runs the lab at its "
                            .. "benchmark sizes and draws your speeds beside the reference solution's "
                            .. "on every GPU it was measured on, with the speed targets marked "
                            .. "(the same card as "), pandoc.Code("make scorecard LAB=" .. lab),
                 pandoc.Str(").")}),
    pandoc.Div({pandoc.CodeBlock(code:gsub("\n$", ""), {class = "python"})},
               {class = "cell code", cudalabs = "scorecard"}),
  }
end

-- In print, a heading keeps the start of what follows it on its page, and short tables and code
-- blocks are not split: \keeptogether{N} (handouts/style/header.tex) before them, N in lines of
-- body text. Longer ones may split; a page holds about 55 lines.
local KEEP_MAX = 30

local function lines_of(block)
  if block.t == "Table" then
    local rows = 0
    for _, body in ipairs(block.bodies) do rows = rows + #body.body end
    return rows * 1.3 + 4  -- footnotesize rows, some of two lines; rules and the head
  elseif block.t == "CodeBlock" then
    local n = select(2, block.text:gsub("\n", "")) + 1
    return n * 0.85 + 1.5
  elseif block.t == "Figure" or (block.t == "Para" and #block.content == 1 and block.content[1].t == "Image") then
    return 20
  end
  return 3  -- the first lines of a paragraph or a list
end

local function keep_together(blocks)
  if FORMAT ~= "latex" then return blocks end
  local out = {}
  for i, el in ipairs(blocks) do
    local need = nil
    local after = blocks[i + 1]
    if el.t == "Header" then
      need = 3 + (after and math.min(lines_of(after), KEEP_MAX) or 0)
      -- a heading right above another (Measured results, then a GPU's) keeps both and the start
      -- of what follows the second
      if after and after.t == "Header" then
        need = 7 + (blocks[i + 2] and math.min(lines_of(blocks[i + 2]), KEEP_MAX) or 0)
      end
      -- a short lead-in before a table or code block stays with it
      if after and after.t == "Para" and blocks[i + 2] and (blocks[i + 2].t == "Table" or blocks[i + 2].t == "CodeBlock") then
        need = 6 + math.min(lines_of(blocks[i + 2]), KEEP_MAX)
      end
    elseif (el.t == "Table" or el.t == "CodeBlock") and lines_of(el) <= KEEP_MAX then
      -- not again after its lead-in's (a float placed at the top of the new page in between
      -- would part them: the lead-in alone at the foot of a page)
      local before, lead = out[#out], out[#out - 1]
      local kept = function(b) return b and b.t == "RawBlock" and b.text:match("keeptogether") end
      if not kept(before) and not (before and before.t == "Para" and kept(lead)) then need = lines_of(el) end
    elseif el.t == "Para" and after and (after.t == "Table" or after.t == "CodeBlock")
        and lines_of(after) <= KEEP_MAX and (i == 1 or blocks[i - 1].t ~= "Header") then
      need = 3 + lines_of(after)
    end
    if need then out[#out + 1] = pandoc.RawBlock("latex", string.format("\\keeptogether{%d}", math.ceil(need))) end
    out[#out + 1] = el
  end
  return out
end

-- Inline code in print: never broken at one of its own hyphens (labs/01-vector-add would
-- read as two words); a break after an underscore stays possible (handouts/style/header.tex).
local LATEX_ESCAPES = {["\\"] = "\\textbackslash{}", ["{"] = "\\{", ["}"] = "\\}", ["$"] = "\\$",
                       ["&"] = "\\&", ["#"] = "\\#", ["^"] = "\\textasciicircum{}", ["_"] = "\\_",
                       ["%"] = "\\%", ["~"] = "\\textasciitilde{}", ["-"] = "\\mbox{-}"}

local function unbroken_code(el)
  if FORMAT ~= "latex" or not el.text:find("-", 1, true) or #el.classes > 0 then return nil end
  return pandoc.RawInline("latex", "\\texttt{" .. el.text:gsub("[\\{}$&#^_%%~-]", LATEX_ESCAPES) .. "}")
end

function svg_to_pdf(img)
  if not img.src:match("%.svg$") then return nil end
  local src = img.src
  if not read_file(src) then src = "handouts/" .. img.src end
  if not read_file(src) then fail("figure " .. img.src .. " not found") end
  -- One file per handout and edition: parallel builds never write the same file.
  local out = gen_dir .. "/pdf/" .. (source_name .. "-" .. edition .. "-" .. src):gsub("[/.]", "_") .. ".pdf"
  os.execute("mkdir -p " .. gen_dir .. "/pdf")
  local ok = os.execute("rsvg-convert -f pdf -o '" .. out .. "' '" .. src .. "'")
  if not ok then fail("rsvg-convert could not convert " .. src) end
  img.src = out
  -- In print every figure spans the text's width (493 pt on A4), the width its fonts are drawn
  -- for: its smallest text prints at 8 pt or more (tests/tools/figure_fonts.py). The width the
  -- source gives holds for the web page.
  img.attributes.width = "100%"
  return img
end

function Pandoc(doc)
  local m = doc.meta
  source_name = PANDOC_STATE.input_files[1] or "handout"
  edition = m.edition and pandoc.utils.stringify(m.edition) or "student"
  if edition ~= "student" and edition ~= "instructor" then fail("edition must be student or instructor") end
  repo_url = m.repo_url and pandoc.utils.stringify(m.repo_url) or ""
  colab_base = m.colab_base and pandoc.utils.stringify(m.colab_base) or ""
  if colab_base ~= "" and not colab_base:match("^https://colab%.research%.google%.com/github/[%w._/-]+$") then
    fail("colab_base must be https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/FOLDER, got " .. colab_base)
  end
  python = m.python and pandoc.utils.stringify(m.python) or python
  gen_dir = m.gen_dir and pandoc.utils.stringify(m.gen_dir) or gen_dir
  lab = m.lab and pandoc.utils.stringify(m.lab) or nil
  if lab and not lab:match("^%d%d$") then fail("metadata 'lab' must be two digits, got " .. lab) end

  local blocks = transform(doc.blocks, false)
  if lab then
    local top = colab_lab_block()
    for i = #top, 1, -1 do table.insert(blocks, 1, top[i]) end
    -- What to hand in and how it is graded (handouts/tools/rubric.py, handin-NN.md, from the
    -- grader's rubric), in both editions, before the measured results (else at the end).
    local handin = transform(generated_blocks("handin", "rubric.py"), false)
    local at = #blocks + 1
    for i, b in ipairs(blocks) do
      if b.t == "Header" and b.level == 1 and pandoc.utils.stringify(b) == "Measured results" then at = i; break end
    end
    for i = #handin, 1, -1 do table.insert(blocks, at, handin[i]) end
  end

  local title = m.title and pandoc.utils.stringify(m.title) or "cudalabs"
  local subtitle = (edition == "instructor" and "Instructor edition" or "Student edition")
  m.subtitle = pandoc.MetaInlines({pandoc.Str("cudalabs · " .. subtitle)})
  m["edition-name"] = subtitle

  if FORMAT == "latex" then
    -- LaTeX cannot include SVG: convert each figure to PDF next to the generated fragments.
    blocks = pandoc.walk_block(pandoc.Div(blocks), {Image = svg_to_pdf}).content
    blocks = pandoc.walk_block(pandoc.Div(blocks), {Blocks = keep_together, Code = unbroken_code}).content
  end
  if notebook then
    local top = setup_cells(title)
    for i = #top, 1, -1 do table.insert(blocks, 1, top[i]) end
    for _, b in ipairs(scorecard_cells()) do blocks[#blocks + 1] = b end
    m.jupyter = {
      kernelspec = {name = "python3", display_name = "Python 3", language = "python"},
      language_info = {name = "python"},
      accelerator = "GPU",
      colab = {gpuType = "T4"},
    }
  end
  return pandoc.Pandoc(blocks, m)
end
