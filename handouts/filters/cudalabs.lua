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
--
-- Metadata (set by handouts.mk with -M): lab ("01", from the handout itself), edition
-- ("student" | "instructor"), repo_url, gen_dir (where results.py wrote its fragments).
-- Any include that cannot be resolved stops the build with a message naming the handout, the
-- file and the region: a handout never silently loses code.

local edition = "student"
local lab = nil
local repo_url = ""
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

local function results_blocks()
  local path = gen_dir .. "/results-" .. lab .. ".md"
  local text = read_file(path)
  if not text then fail("no " .. path .. ": run handouts/tools/results.py first (make does)") end
  return pandoc.read(text, "markdown").blocks
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
      add = transform(results_blocks(), instr)
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

local function setup_cells(title)
  local code = table.concat({
    "# Get the course files into this session (run once; safe to run again).",
    "# REPO_URL: the course's git repository, set by your instructor. Left empty, the cell asks",
    "# for a zip of the course instead (an instructor makes one with: git archive -o cudalabs.zip HEAD).",
    "REPO_URL = \"" .. repo_url .. "\"",
    "import os, subprocess, zipfile",
    "if not os.path.isfile(\"Makefile\"):  # not yet inside the course folder",
    "    if not os.path.isfile(\"cudalabs/Makefile\"):",
    "        if REPO_URL:",
    "            subprocess.run([\"git\", \"clone\", \"--depth\", \"1\", REPO_URL, \"cudalabs\"], check=True)",
    "        else:",
    "            from google.colab import files  # in Jupyter elsewhere: unzip the course by hand",
    "            for name in files.upload():",
    "                zipfile.ZipFile(name).extractall(\"cudalabs\")",
    "    os.chdir(\"cudalabs\")",
    "print(os.getcwd())",
    "!nvidia-smi -L; nvcc --version | tail -n 2",
  }, "\n")
  return {
    pandoc.Header(1, title),
    pandoc.Para({pandoc.Str("This notebook runs on Colab with a GPU (Runtime → Change runtime type "
                            .. "→ GPU) or on any Jupyter server with a CUDA GPU and the CUDA "
                            .. "Toolkit. Run the cells from top to bottom.")}),
    code_cell(code, "setup"),
  }
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
  return img
end

function Pandoc(doc)
  local m = doc.meta
  source_name = PANDOC_STATE.input_files[1] or "handout"
  edition = m.edition and pandoc.utils.stringify(m.edition) or "student"
  if edition ~= "student" and edition ~= "instructor" then fail("edition must be student or instructor") end
  repo_url = m.repo_url and pandoc.utils.stringify(m.repo_url) or ""
  gen_dir = m.gen_dir and pandoc.utils.stringify(m.gen_dir) or gen_dir
  lab = m.lab and pandoc.utils.stringify(m.lab) or nil
  if lab and not lab:match("^%d%d$") then fail("metadata 'lab' must be two digits, got " .. lab) end

  local blocks = transform(doc.blocks, false)

  local title = m.title and pandoc.utils.stringify(m.title) or "cudalabs"
  local subtitle = (edition == "instructor" and "Instructor edition" or "Student edition")
  m.subtitle = pandoc.MetaInlines({pandoc.Str("cudalabs · " .. subtitle)})
  m["edition-name"] = subtitle

  if FORMAT == "latex" then
    -- LaTeX cannot include SVG: convert each figure to PDF next to the generated fragments.
    blocks = pandoc.walk_block(pandoc.Div(blocks), {Image = svg_to_pdf}).content
  end
  if notebook then
    local top = setup_cells(title)
    for i = #top, 1, -1 do table.insert(blocks, 1, top[i]) end
    m.jupyter = {
      kernelspec = {name = "python3", display_name = "Python 3", language = "python"},
      language_info = {name = "python"},
      accelerator = "GPU",
      colab = {gpuType = "T4"},
    }
  end
  return pandoc.Pandoc(blocks, m)
end
