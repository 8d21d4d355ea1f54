/** The modals: their titles and buttons, inputs, validation and answers. */
export const modalsEn = {
  // Modals: titles and buttons (at most 24 characters each).
  "modal.speakers.title": "Name the speakers",
  "modal.regenerate.title": "Regenerate notes",
  "modal.new_notes.title": "New meeting notes",
  "modal.settings.title": "Channel settings",
  "modal.speakers.submit": "Write notes",
  "modal.regenerate.submit": "Regenerate",
  "modal.new_notes.submit": "Start",
  "modal.settings.submit": "Save",
  "modal.close": "Cancel",
  "modal.speakers.next": "Next",

  // The speaker modal.
  "speakers.intro":
    "For each speaker, pick a Slack member or type a name. The quotes help you tell them apart.",
  "speakers.label": "Speaker {number}",
  "speakers.share": "{speaker} · {percent}% of talk time",
  "speakers.brief":
    "Spoke only {seconds} seconds: perhaps the same person as another speaker. Leave it empty if unsure.",
  "speakers.optional_hint":
    "Leave a speaker empty to keep a neutral label (Speaker 3). Two speakers may be the same person.",
  "speakers.no_quotes": "No quotes to show.",
  "speakers.user_label": "Slack member",
  "speakers.user_placeholder": "Choose a member",
  "speakers.name_label": "Or type a name",
  "speakers.name_placeholder": "Name as it should appear in the notes",
  "speakers.gender_label": "Gender",
  "speakers.gender_hint": "Optional. Helps the notes use the right pronouns.",
  "speakers.gender_placeholder": "Not specified",
  "gender.male": "Male (he/him)",
  "gender.female": "Female (she/her)",
  "regenerate.context_label": "Context",
  "regenerate.context_hint":
    "Agenda, glossary or decisions to look for. Leave empty to keep the current context.",
  "regenerate.template_label": "Word template (DOCX)",
  "regenerate.template_hint": "Optional. Leave empty to keep the current template.",
  "speakers.page":
    "Page {page} of {pages}: speakers {first} to {last} of {total}, the most heard first. What you enter is kept when you change pages.",
  "button.previous_page": "Previous page",
  "speakers.saved": "Thanks! The notes are being written with these names.",
  "speakers.regenerating": "A new version of the notes is being written.",

  // Validation errors shown under a modal's inputs.
  "validation.name_too_long": "Keep the name to {max} characters or fewer.",
  "validation.control_chars": "Remove the special (control) characters from this text.",
  "validation.recording_required": "Upload a recording or choose a recent one.",
  "validation.recording_both": "Choose either an uploaded recording or a recent one, not both.",
  "validation.extra_name_too_long": "“{name}” is longer than {max} characters.",
  "validation.language": "Choose a language from the list.",
  "validation.unreadable": "This form could not be read. Close it and try again.",

  // The /meeting-notes modal.
  "new_notes.recording_label": "Recording",
  "new_notes.recording_hint":
    "Files added here can be up to 10 MB. Upload larger recordings to the channel instead.",
  "new_notes.recent_label": "Or a recent recording from this channel",
  "new_notes.recent_placeholder": "Choose a recording",
  "new_notes.participants_label": "Participants",
  "new_notes.participants_hint": "Their real names help tell the speakers apart.",
  "new_notes.participants_placeholder": "Choose members",
  "new_notes.extra_names_label": "Other participants",
  "new_notes.extra_names_hint":
    "People who are not in Slack: one name per line, or commas between.",
  "new_notes.context_label": "Agenda or glossary",
  "new_notes.context_hint": "Helps with names, terms and what the notes focus on.",
  "new_notes.language_label": "Language",
  "new_notes.template_label": "Word template (DOCX)",
  "new_notes.template_hint": "Optional. The Note Service's own template is used otherwise.",
  "new_notes.destination_label": "Post the notes in",
  "language.auto": "Detect automatically",
  "new_notes.pending":
    "The notes will start in a thread in {channel} as soon as my storage is working again.",
  "new_notes.started": "The notes are on their way: they will appear in a thread in {channel}.",
  "new_notes.already": "Notes for this recording are already being made in {channel}.",
  "new_notes.already_thread":
    "Notes for this recording are already being made in <{url}|a thread> in {channel}.",

  // The channel settings modal.
  "settings.intro": "Defaults for recordings in {channel}.",
  "settings.auto_label": "Transcribe uploads automatically",
  "settings.auto_on": "On: every recording uploaded here gets notes",
  "settings.auto_off": "Off: only recordings sent with /meeting-notes",
  "settings.language_label": "Language",
  "settings.context_label": "Context",
  "settings.context_hint": "Agenda, glossary or names used in this channel's meetings.",
  "settings.template_label": "Word template (DOCX)",
  "settings.delivery_label": "Besides the thread messages and the Word document",
  "settings.delivery_hint":
    "People are mentioned only when they were picked as Slack members in Name speakers.",
  "settings.delivery_canvas": "Put the notes in a canvas the channel can read",
  "settings.delivery_transcript": "Upload the transcript with the speakers' names (.txt and .vtt)",
  "settings.delivery_mentions": "Mention the people named in the notes",
  "settings.template_hint_none": "Optional. The Note Service's own template is used otherwise.",
  "settings.template_hint_set": "A template is set. Upload a new one to replace it.",
  "settings.template_clear_label": "Current template",
  "settings.template_clear": "Stop using the current template",
  "settings.saved": "Saved the settings for this channel.",

  // A modal while the app works on it, and after (opened at once, answered in time).
  "notice.loading": "One moment…",
  "notice.open_failed": "Slack did not let me open the form in time. Try again.",
  "notice.failed": "Something went wrong on my side. Close this and try again.",
  "notice.working":
    "Working on it: Slack is slow to answer right now. You can close this, I will finish anyway and tell you how it went.",
  "notice.not_done": "I could not do that:",
} as const;

export const modalsVi: { readonly [K in keyof typeof modalsEn]: string } = {
  "modal.speakers.title": "Đặt tên người nói",
  "modal.regenerate.title": "Tạo lại biên bản",
  "modal.new_notes.title": "Biên bản cuộc họp mới",
  "modal.settings.title": "Cài đặt kênh",
  "modal.speakers.submit": "Viết biên bản",
  "modal.regenerate.submit": "Tạo lại",
  "modal.new_notes.submit": "Bắt đầu",
  "modal.settings.submit": "Lưu",
  "modal.close": "Hủy",
  "modal.speakers.next": "Tiếp",

  "speakers.intro":
    "Với mỗi người nói, hãy chọn một thành viên Slack hoặc nhập tên. Các trích dẫn giúp bạn nhận ra họ.",
  "speakers.label": "Người nói {number}",
  "speakers.share": "{speaker} · {percent}% thời lượng nói",
  "speakers.brief":
    "Chỉ nói {seconds} giây: có thể là cùng một người với người nói khác. Để trống nếu không chắc.",
  "speakers.optional_hint":
    "Để trống một người nói để giữ nhãn trung lập (Người nói 3). Hai người nói có thể là cùng một người.",
  "speakers.no_quotes": "Không có trích dẫn để hiển thị.",
  "speakers.user_label": "Thành viên Slack",
  "speakers.user_placeholder": "Chọn thành viên",
  "speakers.name_label": "Hoặc nhập tên",
  "speakers.name_placeholder": "Tên hiển thị trong biên bản",
  "speakers.gender_label": "Giới tính",
  "speakers.gender_hint": "Không bắt buộc. Giúp biên bản xưng hô đúng.",
  "speakers.gender_placeholder": "Không xác định",
  "gender.male": "Nam (anh/ông)",
  "gender.female": "Nữ (chị/bà)",
  "regenerate.context_label": "Bối cảnh",
  "regenerate.context_hint":
    "Chương trình họp, thuật ngữ hoặc các quyết định cần chú ý. Để trống để giữ bối cảnh hiện tại.",
  "regenerate.template_label": "Mẫu Word (DOCX)",
  "regenerate.template_hint": "Không bắt buộc. Để trống để giữ mẫu hiện tại.",
  "speakers.page":
    "Trang {page}/{pages}: người nói {first} đến {last} trong số {total}, ai nói nhiều nhất trước. Những gì bạn nhập được giữ lại khi chuyển trang.",
  "button.previous_page": "Trang trước",
  "speakers.saved": "Cảm ơn bạn! Biên bản đang được viết với những tên này.",
  "speakers.regenerating": "Một phiên bản mới của biên bản đang được viết.",

  "validation.name_too_long": "Tên không được dài quá {max} ký tự.",
  "validation.control_chars": "Hãy xóa các ký tự đặc biệt (ký tự điều khiển) khỏi nội dung này.",
  "validation.recording_required": "Hãy tải lên một bản ghi âm hoặc chọn một bản gần đây.",
  "validation.recording_both":
    "Chỉ chọn một: bản ghi âm tải lên hoặc bản gần đây, không phải cả hai.",
  "validation.extra_name_too_long": "“{name}” dài quá {max} ký tự.",
  "validation.language": "Hãy chọn một ngôn ngữ trong danh sách.",
  "validation.unreadable": "Không đọc được biểu mẫu này. Hãy đóng lại và thử lần nữa.",

  "new_notes.recording_label": "Bản ghi âm",
  "new_notes.recording_hint":
    "Tệp thêm ở đây tối đa 10 MB. Bản ghi âm lớn hơn, hãy tải thẳng lên kênh.",
  "new_notes.recent_label": "Hoặc một bản ghi âm gần đây trong kênh",
  "new_notes.recent_placeholder": "Chọn bản ghi âm",
  "new_notes.participants_label": "Người tham dự",
  "new_notes.participants_hint": "Tên thật của họ giúp phân biệt người nói.",
  "new_notes.participants_placeholder": "Chọn thành viên",
  "new_notes.extra_names_label": "Người tham dự khác",
  "new_notes.extra_names_hint":
    "Những người không dùng Slack: mỗi dòng một tên, hoặc ngăn cách bằng dấu phẩy.",
  "new_notes.context_label": "Chương trình họp hoặc thuật ngữ",
  "new_notes.context_hint": "Giúp nhận đúng tên, thuật ngữ và trọng tâm của biên bản.",
  "new_notes.language_label": "Ngôn ngữ",
  "new_notes.template_label": "Mẫu Word (DOCX)",
  "new_notes.template_hint": "Không bắt buộc. Nếu để trống, Note Service dùng mẫu riêng của mình.",
  "new_notes.destination_label": "Đăng biên bản vào",
  "language.auto": "Tự động nhận diện",
  "new_notes.pending":
    "Biên bản sẽ bắt đầu trong một luồng ở {channel} ngay khi bộ lưu trữ của tôi hoạt động trở lại.",
  "new_notes.started": "Biên bản đang được chuẩn bị: sẽ xuất hiện trong một luồng ở {channel}.",
  "new_notes.already": "Biên bản cho bản ghi âm này đang được làm trong {channel}.",
  "new_notes.already_thread":
    "Biên bản cho bản ghi âm này đang được làm trong <{url}|một luồng> ở {channel}.",

  "settings.intro": "Thiết lập mặc định cho các bản ghi âm trong {channel}.",
  "settings.auto_label": "Tự động phiên âm tệp tải lên",
  "settings.auto_on": "Bật: mọi bản ghi âm tải lên đây đều có biên bản",
  "settings.auto_off": "Tắt: chỉ các bản ghi âm gửi qua /meeting-notes",
  "settings.language_label": "Ngôn ngữ",
  "settings.context_label": "Bối cảnh",
  "settings.context_hint":
    "Chương trình họp, thuật ngữ hoặc tên thường gặp trong các cuộc họp của kênh.",
  "settings.template_label": "Mẫu Word (DOCX)",
  "settings.delivery_label": "Ngoài các tin nhắn trong luồng và tài liệu Word",
  "settings.delivery_hint":
    "Chỉ nhắc đến những người được chọn là thành viên Slack trong Đặt tên người nói.",
  "settings.delivery_canvas": "Đưa biên bản vào một canvas mà kênh có thể đọc",
  "settings.delivery_transcript": "Tải lên bản ghi lời nói kèm tên người nói (.txt và .vtt)",
  "settings.delivery_mentions": "Nhắc đến những người được nêu tên trong biên bản",
  "settings.template_hint_none":
    "Không bắt buộc. Nếu để trống, Note Service dùng mẫu riêng của mình.",
  "settings.template_hint_set": "Kênh đã có mẫu. Tải lên mẫu mới để thay thế.",
  "settings.template_clear_label": "Mẫu hiện tại",
  "settings.template_clear": "Ngừng dùng mẫu hiện tại",
  "settings.saved": "Đã lưu cài đặt cho kênh này.",

  "notice.loading": "Chờ một chút…",
  "notice.open_failed": "Slack không cho tôi mở biểu mẫu kịp lúc. Hãy thử lại.",
  "notice.failed": "Đã có lỗi ở phía tôi. Hãy đóng cửa sổ này và thử lại.",
  "notice.working":
    "Đang xử lý: lúc này Slack phản hồi chậm. Bạn có thể đóng cửa sổ này, tôi vẫn sẽ làm xong và báo cho bạn kết quả.",
  "notice.not_done": "Tôi không làm được việc đó:",
};
